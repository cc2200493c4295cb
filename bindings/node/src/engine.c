/* The engine's native functions: making one, closing it, its clocks, its
 * timers as a list, saving and loading. Each is one C call (or a few, as
 * said) on an engine that belongs to this environment. */
#include <stdlib.h>

#include "addon.h"

static napi_value engine_new(napi_env env, napi_callback_info info) {
    size_t n = 2;
    napi_value argv[2];
    bool manual = false;
    napi_valuetype type;
    if (napi_get_cb_info(env, info, &n, argv, NULL, NULL) != napi_ok)
        return NULL;
    if (n < 2 || napi_get_value_bool(env, argv[0], &manual) != napi_ok ||
        napi_typeof(env, argv[1], &type) != napi_ok || type != napi_function)
        return throw_type(env, "engineNew(manual: boolean, deliver: function)");
    return host_new(env, manual, argv[1]);
}

static napi_value engine_close(napi_env env, napi_callback_info info) {
    size_t n = 1;
    napi_value argv[1];
    host *h;
    if (napi_get_cb_info(env, info, &n, argv, NULL, NULL) != napi_ok)
        return NULL;
    if (n < 1 || !arg_host(env, argv[0], &h))
        return NULL;
    host_close(h);
    return undefined(env);
}

/* Keeps the loop alive (a timer is armed) or not. */
static napi_value engine_ref(napi_env env, napi_callback_info info) {
    napi_value argv[2];
    host *h;
    bool ref = false;
    if (!begin(env, info, 2, argv, &h))
        return NULL;
    napi_get_value_bool(env, argv[1], &ref);
    host_set_ref(h, ref);
    return undefined(env);
}

/* advance, simulateSuspend, setWallClock: handlers run inside; the first
   one that throws is thrown once the outermost call is over (a listener
   may call advance() again: the engine refuses it, the outer call goes on
   delivering and still throws what its listeners threw). */
static napi_value move_clock(napi_env env, napi_callback_info info,
                             int (*move)(tocsin_engine *, double), const char *what) {
    napi_value argv[2];
    host *h;
    double seconds;
    if (!begin(env, info, 2, argv, &h) || !arg_double(env, argv[1], &seconds))
        return NULL;
    h->in_call++;
    int status = move(h->engine, seconds);
    h->in_call--;
    if (h->in_call == 0 && host_rethrow(env, h))
        return NULL;
    return status < 0 ? throw_status(env, status, what) : make_int(env, status);
}

static napi_value engine_advance(napi_env env, napi_callback_info info) {
    return move_clock(env, info, tocsin_engine_advance, "engine.advance()");
}

static napi_value engine_simulate_suspend(napi_env env, napi_callback_info info) {
    return move_clock(env, info, tocsin_engine_simulate_suspend, "engine.simulateSuspend()");
}

static napi_value engine_set_wall_clock(napi_env env, napi_callback_info info) {
    return move_clock(env, info, tocsin_engine_set_wall_clock, "engine.setWallClock()");
}

static napi_value read_clock(napi_env env, napi_callback_info info,
                             int (*read)(tocsin_engine *, double *), const char *what) {
    napi_value argv[1];
    host *h;
    double seconds = 0;
    if (!begin(env, info, 1, argv, &h))
        return NULL;
    int status = read(h->engine, &seconds);
    return status < 0 ? throw_status(env, status, what) : make_double(env, seconds);
}

static napi_value engine_now(napi_env env, napi_callback_info info) {
    return read_clock(env, info, tocsin_engine_now, "engine.now");
}

static napi_value engine_wall_clock(napi_env env, napi_callback_info info) {
    return read_clock(env, info, tocsin_engine_wall_clock, "engine.wallClock");
}

/* Every timer's handle, in creation order. */
static napi_value engine_timers(napi_env env, napi_callback_info info) {
    napi_value argv[1], list;
    host *h;
    if (!begin(env, info, 1, argv, &h))
        return NULL;
    int count = tocsin_engine_timers(h->engine, NULL, 0);
    if (count < 0)
        return throw_status(env, count, "engine.timers()");
    tocsin_timer *handles = malloc(sizeof *handles * (size_t)(count + 1));
    if (handles == NULL)
        return throw_status(env, TOCSIN_ENOMEM, "engine.timers()");
    int got = tocsin_engine_timers(h->engine, handles, (size_t)count + 1);
    if (got > count)
        got = count;
    napi_create_array_with_length(env, (size_t)(got < 0 ? 0 : got), &list);
    for (int i = 0; i < got; i++)
        napi_set_element(env, list, (uint32_t)i, make_handle(env, handles[i]));
    free(handles);
    return list;
}

static napi_value engine_save(napi_env env, napi_callback_info info) {
    napi_value argv[2];
    host *h;
    if (!begin(env, info, 2, argv, &h))
        return NULL;
    char *path = arg_string(env, argv[1]);
    if (path == NULL)
        return NULL;
    int status = tocsin_engine_save(h->engine, path);
    free(path);
    return status < 0 ? throw_status(env, status, "engine.save()") : undefined(env);
}

/* Loads, then gives each restored timer (the last n) the addon's callback
   with every kind of event, so a held FINISH is delivered; the JavaScript
   layer narrows the kinds once it has a Timer for each. */
static napi_value engine_load(napi_env env, napi_callback_info info) {
    napi_value argv[2], list;
    host *h;
    size_t restored = 0;
    if (!begin(env, info, 2, argv, &h))
        return NULL;
    char *path = arg_string(env, argv[1]);
    if (path == NULL)
        return NULL;
    int status = tocsin_engine_load(h->engine, path, &restored);
    free(path);
    if (status < 0)
        return throw_status(env, status, "engine.load()");
    int count = tocsin_engine_timers(h->engine, NULL, 0);
    tocsin_timer *handles = malloc(sizeof *handles * (size_t)(count + 1));
    if (count < 0 || handles == NULL) {
        free(handles);
        return throw_status(env, count < 0 ? count : TOCSIN_ENOMEM, "engine.load()");
    }
    int got = tocsin_engine_timers(h->engine, handles, (size_t)count + 1);
    if (got > count)
        got = count;
    if ((size_t)got < restored)
        restored = (size_t)got;
    napi_create_array_with_length(env, restored, &list);
    for (size_t i = 0; i < restored; i++) {
        tocsin_timer t = handles[(size_t)got - restored + i];
        tocsin_timer_set_callback(h->engine, t, host_on_event, h);
        napi_set_element(env, list, (uint32_t)i, make_handle(env, t));
    }
    free(handles);
    return list;
}

/* Whether this engine can arm timers that wake a suspended machine: 1 or
   0 (CAP_WAKE_ALARM, a wake-capable clock). */
static napi_value engine_can_wake(napi_env env, napi_callback_info info) {
    napi_value argv[1];
    host *h;
    if (!begin(env, info, 1, argv, &h))
        return NULL;
    int can = tocsin_engine_can_wake(h->engine);
    return can < 0 ? throw_status(env, can, "engine.canWake") : make_int(env, can);
}

/* Why it cannot ("" when it can). */
static napi_value engine_wake_reason(napi_env env, napi_callback_info info) {
    napi_value argv[1];
    host *h;
    if (!begin(env, info, 1, argv, &h))
        return NULL;
    int length = tocsin_engine_wake_reason(h->engine, NULL, 0);
    if (length < 0)
        return throw_status(env, length, "engine.wakeReason");
    char *text = malloc((size_t)length + 1);
    if (text == NULL)
        return throw_status(env, TOCSIN_ENOMEM, "engine.wakeReason");
    tocsin_engine_wake_reason(h->engine, text, (size_t)length + 1);
    napi_value value = make_string(env, text);
    free(text);
    return value;
}

const native engine_natives[] = {
    {"canWake", engine_can_wake},
    {"wakeReason", engine_wake_reason},
    {"engineNew", engine_new},
    {"engineClose", engine_close},
    {"engineRef", engine_ref},
    {"advance", engine_advance},
    {"simulateSuspend", engine_simulate_suspend},
    {"setWallClock", engine_set_wall_clock},
    {"now", engine_now},
    {"wallClock", engine_wall_clock},
    {"timers", engine_timers},
    {"save", engine_save},
    {"load", engine_load},
    {NULL, NULL},
};
