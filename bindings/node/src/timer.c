/* A timer's native functions that make or change it: one C call each on
 * (engine, handle), the status thrown as an Error with its code. Making a
 * timer also gives it the addon's callback and the kinds of event its
 * JavaScript listeners want, in the same native call. */
#include <stdlib.h>

#include "addon.h"

/* After a make: the callback and the event bits, or the timer is freed
   again so that nothing is left behind. */
static napi_value made(napi_env env, host *h, int status, tocsin_timer t,
                       napi_value events_value, const char *what) {
    int events = 0;
    if (status < 0)
        return throw_status(env, status, what);
    if (!arg_int(env, events_value, &events)) {
        tocsin_timer_free(h->engine, t);
        return NULL;
    }
    status = tocsin_timer_set_events(h->engine, t, (unsigned)events);
    if (status == 0)
        status = tocsin_timer_set_callback(h->engine, t, host_on_event, h);
    if (status < 0) {
        tocsin_timer_free(h->engine, t);
        return throw_status(env, status, what);
    }
    return make_handle(env, t);
}

/* countdown(engine, seconds, events), alarm(engine, unixSeconds, events) */
static napi_value make_timed(napi_env env, napi_callback_info info,
                             int (*make)(tocsin_engine *, double, tocsin_timer *),
                             const char *what) {
    napi_value argv[3];
    host *h;
    double seconds;
    tocsin_timer t = 0;
    if (!begin(env, info, 3, argv, &h) || !arg_double(env, argv[1], &seconds))
        return NULL;
    int status = make(h->engine, seconds, &t);
    return made(env, h, status, t, argv[2], what);
}

static napi_value countdown_new(napi_env env, napi_callback_info info) {
    return make_timed(env, info, tocsin_countdown_new, "engine.countdown()");
}

static napi_value alarm_new(napi_env env, napi_callback_info info) {
    return make_timed(env, info, tocsin_alarm_new, "engine.alarm()");
}

static napi_value stopwatch_new(napi_env env, napi_callback_info info) {
    napi_value argv[2];
    host *h;
    tocsin_timer t = 0;
    if (!begin(env, info, 2, argv, &h))
        return NULL;
    int status = tocsin_stopwatch_new(h->engine, &t);
    return made(env, h, status, t, argv[1], "engine.stopwatch()");
}

static napi_value calendar_new(napi_env env, napi_callback_info info) {
    napi_value argv[3];
    host *h;
    tocsin_timer t = 0;
    if (!begin(env, info, 3, argv, &h))
        return NULL;
    char *spec = arg_string(env, argv[1]);
    if (spec == NULL)
        return NULL;
    int status = tocsin_calendar_new(h->engine, spec, &t);
    free(spec);
    return made(env, h, status, t, argv[2], "engine.calendar()");
}

/* (engine, timer): start, suspend, resume, cancel, free, lap. */
#define TIMER_CALL(fn, c_call, what)                                           \
    static napi_value fn(napi_env env, napi_callback_info info) {              \
        napi_value argv[2];                                                    \
        host *h;                                                               \
        tocsin_timer t;                                                        \
        if (!begin_timer(env, info, 2, argv, &h, &t))                          \
            return NULL;                                                       \
        int status = c_call;                                                   \
        return status < 0 ? throw_status(env, status, what) : undefined(env);  \
    }

/* (engine, timer, number): the C call's last argument. */
#define TIMER_CALL_NUMBER(fn, type, read, c_call, what)                        \
    static napi_value fn(napi_env env, napi_callback_info info) {              \
        napi_value argv[3];                                                    \
        host *h;                                                               \
        tocsin_timer t;                                                        \
        type value;                                                            \
        if (!begin_timer(env, info, 3, argv, &h, &t) ||                        \
            !read(env, argv[2], &value))                                       \
            return NULL;                                                       \
        int status = c_call;                                                   \
        return status < 0 ? throw_status(env, status, what) : undefined(env);  \
    }

TIMER_CALL(timer_start, tocsin_timer_start(h->engine, t), "timer.start()")
TIMER_CALL(timer_suspend, tocsin_timer_suspend(h->engine, t), "timer.suspend()")
TIMER_CALL(timer_resume, tocsin_timer_resume(h->engine, t), "timer.resume()")
TIMER_CALL(timer_cancel, tocsin_timer_cancel(h->engine, t), "timer.cancel()")
TIMER_CALL(timer_free, tocsin_timer_free(h->engine, t), "timer.free()")
TIMER_CALL_NUMBER(timer_adjust, double, arg_double,
                  tocsin_timer_adjust(h->engine, t, value), "timer.adjust()")
TIMER_CALL_NUMBER(timer_set_tick, double, arg_double,
                  tocsin_timer_set_tick(h->engine, t, value), "timer.tick")
TIMER_CALL_NUMBER(timer_set_leeway, double, arg_double,
                  tocsin_timer_set_leeway(h->engine, t, value), "timer.leeway")
TIMER_CALL_NUMBER(timer_set_tick_policy, int, arg_int,
                  tocsin_timer_set_tick_policy(h->engine, t, value), "timer.tickPolicy")
TIMER_CALL_NUMBER(timer_set_clock, int, arg_int,
                  tocsin_timer_set_clock(h->engine, t, value), "timer.clock")
TIMER_CALL_NUMBER(timer_set_wake, int, arg_int,
                  tocsin_timer_set_wake(h->engine, t, value), "timer.wake")
TIMER_CALL_NUMBER(timer_set_events, int, arg_int,
                  tocsin_timer_set_events(h->engine, t, (unsigned)value), "timer events")
TIMER_CALL_NUMBER(timer_skip_until, double, arg_double,
                  tocsin_calendar_skip_until(h->engine, t, value), "timer.skipUntil()")

/* A count of rings to skip: an integer from 0 (JavaScript checks the
   range, as the C parameter is unsigned). */
static int arg_count(napi_env env, napi_value value, unsigned *out) {
    int count;
    if (!arg_int(env, value, &count))
        return 0;
    if (count < 0) {
        throw_status(env, TOCSIN_EINVAL, "timer.skip(): a count from 0");
        return 0;
    }
    *out = (unsigned)count;
    return 1;
}

TIMER_CALL_NUMBER(timer_skip, unsigned, arg_count,
                  tocsin_calendar_skip(h->engine, t, value), "timer.skip()")

static napi_value timer_set_label(napi_env env, napi_callback_info info) {
    napi_value argv[3];
    host *h;
    tocsin_timer t;
    if (!begin_timer(env, info, 3, argv, &h, &t))
        return NULL;
    char *label = arg_string(env, argv[2]);
    if (label == NULL)
        return NULL;
    int status = tocsin_timer_set_label(h->engine, t, label);
    free(label);
    return status < 0 ? throw_status(env, status, "timer.label") : undefined(env);
}

/* Records a lap; returns its length in seconds. */
static napi_value timer_lap(napi_env env, napi_callback_info info) {
    napi_value argv[2];
    host *h;
    tocsin_timer t;
    double lap = 0;
    if (!begin_timer(env, info, 2, argv, &h, &t))
        return NULL;
    int status = tocsin_timer_lap(h->engine, t, &lap);
    return status < 0 ? throw_status(env, status, "timer.lap()") : make_double(env, lap);
}

const native timer_natives[] = {
    {"countdown", countdown_new},
    {"stopwatch", stopwatch_new},
    {"alarm", alarm_new},
    {"calendar", calendar_new},
    {"start", timer_start},
    {"suspend", timer_suspend},
    {"resume", timer_resume},
    {"cancel", timer_cancel},
    {"free", timer_free},
    {"adjust", timer_adjust},
    {"setTick", timer_set_tick},
    {"setLeeway", timer_set_leeway},
    {"setTickPolicy", timer_set_tick_policy},
    {"setClock", timer_set_clock},
    {"setWake", timer_set_wake},
    {"setEvents", timer_set_events},
    {"skip", timer_skip},
    {"skipUntil", timer_skip_until},
    {"setLabel", timer_set_label},
    {"lap", timer_lap},
    {NULL, NULL},
};
