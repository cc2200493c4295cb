/* The native queries: a timer's values, and the calendar functions that
 * need no engine. None changes anything. */
#include <stdlib.h>

#include "addon.h"

/* (engine, timer) -> the int the C call returns when >= 0. */
#define TIMER_INT(fn, c_fn, what)                                              \
    static napi_value fn(napi_env env, napi_callback_info info) {              \
        napi_value argv[2];                                                    \
        host *h;                                                               \
        tocsin_timer t;                                                        \
        if (!begin_timer(env, info, 2, argv, &h, &t))                          \
            return NULL;                                                       \
        int value = c_fn(h->engine, t);                                        \
        return value < 0 ? throw_status(env, value, what) : make_int(env, value); \
    }

/* (engine, timer) -> the double the C call stores. */
#define TIMER_DOUBLE(fn, c_fn, what)                                           \
    static napi_value fn(napi_env env, napi_callback_info info) {              \
        napi_value argv[2];                                                    \
        host *h;                                                               \
        tocsin_timer t;                                                        \
        double value = 0;                                                      \
        if (!begin_timer(env, info, 2, argv, &h, &t))                          \
            return NULL;                                                       \
        int status = c_fn(h->engine, t, &value);                               \
        return status < 0 ? throw_status(env, status, what) : make_double(env, value); \
    }

TIMER_INT(timer_state, tocsin_timer_state, "timer.state")
TIMER_INT(timer_clock, tocsin_timer_clock, "timer.clock")
TIMER_INT(timer_wake, tocsin_timer_wake, "timer.wake")
TIMER_INT(timer_events, tocsin_timer_events, "timer events")
TIMER_DOUBLE(timer_elapsed, tocsin_timer_elapsed, "timer.elapsed")
TIMER_DOUBLE(timer_remaining, tocsin_timer_remaining, "timer.remaining")
TIMER_DOUBLE(timer_duration, tocsin_timer_duration, "timer.duration")
TIMER_DOUBLE(timer_leeway, tocsin_timer_leeway, "timer.leeway")
TIMER_DOUBLE(timer_alarm_time, tocsin_timer_alarm_time, "timer.alarmTime")

static napi_value timer_text(napi_env env, napi_callback_info info,
                             int (*get)(tocsin_engine *, tocsin_timer, char *, size_t),
                             const char *what) {
    napi_value argv[2];
    host *h;
    tocsin_timer t;
    int status;
    if (!begin_timer(env, info, 2, argv, &h, &t))
        return NULL;
    char *text = copy_text(get, h->engine, t, &status);
    if (text == NULL)
        return throw_status(env, status, what);
    napi_value value = make_string(env, text);
    free(text);
    return value;
}

static napi_value timer_label(napi_env env, napi_callback_info info) {
    return timer_text(env, info, tocsin_timer_label, "timer.label");
}

static napi_value timer_calendar(napi_env env, napi_callback_info info) {
    return timer_text(env, info, tocsin_timer_calendar, "timer.calendar");
}

/* The lap lengths, oldest first. */
static napi_value timer_laps(napi_env env, napi_callback_info info) {
    napi_value argv[2], list;
    host *h;
    tocsin_timer t;
    if (!begin_timer(env, info, 2, argv, &h, &t))
        return NULL;
    int count = tocsin_timer_laps(h->engine, t, NULL, 0);
    if (count < 0)
        return throw_status(env, count, "timer.laps");
    double *laps = malloc(sizeof *laps * (size_t)(count + 1));
    if (laps == NULL)
        return throw_status(env, TOCSIN_ENOMEM, "timer.laps");
    int got = tocsin_timer_laps(h->engine, t, laps, (size_t)count + 1);
    if (got > count)
        got = count;
    napi_create_array_with_length(env, (size_t)(got < 0 ? 0 : got), &list);
    for (int i = 0; i < got; i++)
        napi_set_element(env, list, (uint32_t)i, make_double(env, laps[i]));
    free(laps);
    return list;
}

/* The Unix time before which rings are skipped, or null. */
static napi_value timer_skipped_until(napi_env env, napi_callback_info info) {
    napi_value argv[2], none;
    host *h;
    tocsin_timer t;
    double until = 0;
    if (!begin_timer(env, info, 2, argv, &h, &t))
        return NULL;
    int status = tocsin_calendar_skipped_until(h->engine, t, &until);
    if (status < 0)
        return throw_status(env, status, "timer.skippedUntil");
    napi_get_null(env, &none);
    return status == 1 ? make_double(env, until) : none;
}

/* calendarNext(spec, afterUnixSeconds) -> Unix seconds. */
static napi_value calendar_next(napi_env env, napi_callback_info info) {
    size_t n = 2;
    napi_value argv[2];
    double after, next = 0;
    if (napi_get_cb_info(env, info, &n, argv, NULL, NULL) != napi_ok)
        return NULL;
    if (n < 2)
        return throw_type(env, "calendarNext(spec, after)");
    char *spec = arg_string(env, argv[0]);
    if (spec == NULL)
        return NULL;
    if (!arg_double(env, argv[1], &after)) {
        free(spec);
        return NULL;
    }
    int status = tocsin_calendar_next(spec, after, &next);
    free(spec);
    return status < 0 ? throw_status(env, status, "nextOccurrence()") : make_double(env, next);
}

/* calendarCheck(spec) -> the normalized spec; a bad one throws
   TOCSIN_EINVAL with the engine's reason as its message. */
static napi_value calendar_check(napi_env env, napi_callback_info info) {
    size_t n = 1;
    napi_value argv[1];
    char reason[512];
    if (napi_get_cb_info(env, info, &n, argv, NULL, NULL) != napi_ok)
        return NULL;
    if (n < 1)
        return throw_type(env, "calendarCheck(spec)");
    char *spec = arg_string(env, argv[0]);
    if (spec == NULL)
        return NULL;
    int length = tocsin_calendar_check(spec, reason, sizeof reason);
    if (length < 0 || (size_t)length < sizeof reason) {
        free(spec);
        if (length >= 0)
            return make_string(env, reason);
        napi_value code = make_string(env, tocsin_err_name(length)), message, error;
        message = make_string(env, reason);
        napi_create_error(env, code, message, &error);
        napi_set_named_property(env, error, "errno", make_int(env, length));
        napi_throw(env, error);
        return NULL;
    }
    char *whole = malloc((size_t)length + 1);
    if (whole != NULL)
        tocsin_calendar_check(spec, whole, (size_t)length + 1);
    free(spec);
    if (whole == NULL)
        return throw_status(env, TOCSIN_ENOMEM, "checkCalendar()");
    napi_value value = make_string(env, whole);
    free(whole);
    return value;
}

static napi_value version(napi_env env, napi_callback_info info) {
    return make_string(env, tocsin_version());
}

const native query_natives[] = {
    {"state", timer_state},
    {"clock", timer_clock},
    {"wake", timer_wake},
    {"events", timer_events},
    {"elapsed", timer_elapsed},
    {"remaining", timer_remaining},
    {"duration", timer_duration},
    {"leeway", timer_leeway},
    {"alarmTime", timer_alarm_time},
    {"label", timer_label},
    {"calendarSpec", timer_calendar},
    {"laps", timer_laps},
    {"skippedUntil", timer_skipped_until},
    {"calendarNext", calendar_next},
    {"calendarCheck", calendar_check},
    {"version", version},
    {NULL, NULL},
};
