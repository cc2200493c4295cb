/* The C ABI's rules on a manual clock: exact, deterministic, instant. */
#include <stdlib.h>
#include <string.h>

#include "harness.h"

static tocsin_engine *manual_engine(void) {
    tocsin_engine *engine = NULL;
    CHECK_EQ(TOCSIN_OK, tocsin_engine_new(TOCSIN_ENGINE_MANUAL_CLOCK, &engine));
    return engine;
}

static tocsin_timer logged_countdown(tocsin_engine *engine, double seconds, event_log *log) {
    tocsin_timer timer = 0;
    CHECK_EQ(TOCSIN_OK, tocsin_countdown_new(engine, seconds, &timer));
    CHECK_EQ(TOCSIN_OK, tocsin_timer_set_callback(engine, timer, record_event, log));
    return timer;
}

static void version_and_errors(void) {
    CHECK(!strcmp(tocsin_version(), TOCSIN_VERSION_STRING));
    CHECK_EQ(TOCSIN_VERSION_HEX, tocsin_version_hex());
    CHECK(!strcmp(tocsin_strerror(TOCSIN_OK), "success"));
    CHECK(!strcmp(tocsin_strerror(TOCSIN_ENOENT), "no such timer in this engine"));
    CHECK(!strcmp(tocsin_strerror(12345), "unknown error"));
    CHECK(!strcmp(tocsin_err_name(TOCSIN_ECLOSED), "TOCSIN_ECLOSED"));
    CHECK(!strcmp(tocsin_err_name(-100), "TOCSIN_UNKNOWN"));
    for (int code = TOCSIN_EUNAVAILABLE; code <= TOCSIN_EINVAL; code++)
        CHECK(strcmp(tocsin_strerror(code), "unknown error") != 0);
}

static void engine_arguments(void) {
    tocsin_engine *engine = NULL;
    CHECK_EQ(TOCSIN_EINVAL, tocsin_engine_new(TOCSIN_ENGINE_DEFAULT, NULL));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_engine_new(3, &engine));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_engine_new(0xffffffffu, &engine));
    CHECK(engine == NULL);
    tocsin_engine_free(NULL);
    engine = manual_engine();
    CHECK_EQ(TOCSIN_ESTATE, tocsin_engine_fd(engine));
    CHECK_EQ(TOCSIN_ESTATE, tocsin_engine_dispatch(engine));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_engine_advance(engine, -1));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_engine_advance(engine, NAN));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_engine_advance(engine, INFINITY));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_engine_advance(engine, 1e300));
    CHECK_EQ(0, tocsin_engine_advance(engine, 0));
    double now = -1;
    CHECK_EQ(TOCSIN_OK, tocsin_engine_now(engine, &now));
    CHECK(now == 0);
    CHECK_EQ(TOCSIN_EINVAL, tocsin_engine_now(engine, NULL));
    tocsin_engine_free(engine);
}

static void close_keeps_the_pointer_valid(void) {
    tocsin_engine *engine = manual_engine();
    static event_log log;
    atomic_store(&log.count, 0);
    tocsin_timer timer = logged_countdown(engine, 1, &log);
    tocsin_timer_start(engine, timer);
    tocsin_engine_close(engine);
    tocsin_engine_close(engine); /* twice: no-op */
    tocsin_engine_close(NULL);
    CHECK_EQ(TOCSIN_ECLOSED, tocsin_timer_state(engine, timer));
    CHECK_EQ(TOCSIN_ECLOSED, tocsin_timer_free(engine, timer));
    CHECK_EQ(TOCSIN_ECLOSED, tocsin_engine_advance(engine, 5));
    CHECK_EQ(0, atomic_load(&log.count)); /* nothing is delivered after close */
    tocsin_engine_free(engine);
}

static void observers_see_every_timer_first(void) {
    tocsin_engine *engine = manual_engine();
    static event_log observed, own;
    atomic_store(&observed.count, 0);
    atomic_store(&own.count, 0);
    tocsin_observer id = 0;
    CHECK_EQ(TOCSIN_EINVAL, tocsin_engine_add_observer(engine, NULL, NULL, &id));
    CHECK_EQ(TOCSIN_OK, tocsin_engine_add_observer(engine, record_event, &observed, &id));
    CHECK(id != 0);
    tocsin_timer quiet = 0, loud = 0;
    tocsin_countdown_new(engine, 1, &quiet); /* no callback of its own */
    loud = logged_countdown(engine, 2, &own);
    tocsin_timer_start(engine, quiet);
    tocsin_timer_start(engine, loud);
    tocsin_engine_advance(engine, 5);
    CHECK(!strcmp(event_summary(&observed), "S1 S1 F S3 F S3"));
    CHECK(!strcmp(event_summary(&own), "S1 F S3"));
    CHECK_EQ(TOCSIN_OK, tocsin_engine_remove_observer(engine, id));
    CHECK_EQ(TOCSIN_ENOENT, tocsin_engine_remove_observer(engine, id));
    tocsin_timer_start(engine, quiet);
    tocsin_engine_advance(engine, 5);
    CHECK_EQ(6, atomic_load(&observed.count)); /* nothing after removal */
    tocsin_engine_free(engine);
}

static void null_engine_everywhere(void) {
    tocsin_timer timer = 0;
    double value = 0;
    char label[8];
    CHECK_EQ(TOCSIN_EINVAL, tocsin_engine_fd(NULL));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_engine_dispatch(NULL));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_engine_advance(NULL, 1));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_engine_now(NULL, &value));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_countdown_new(NULL, 1, &timer));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_stopwatch_new(NULL, &timer));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_timer_free(NULL, 1));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_timer_set_callback(NULL, 1, record_event, NULL));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_timer_set_tick(NULL, 1, 1));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_timer_set_label(NULL, 1, "x"));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_timer_label(NULL, 1, label, sizeof label));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_timer_start(NULL, 1));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_timer_suspend(NULL, 1));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_timer_resume(NULL, 1));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_timer_cancel(NULL, 1));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_timer_lap(NULL, 1, &value));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_timer_laps(NULL, 1, &value, 1));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_timer_state(NULL, 1));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_timer_elapsed(NULL, 1, &value));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_timer_remaining(NULL, 1, &value));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_timer_duration(NULL, 1, &value));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_timer_adjust(NULL, 1, 1));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_timer_set_tick_policy(NULL, 1, TOCSIN_TICKS_COALESCE));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_timer_set_clock(NULL, 1, TOCSIN_CLOCK_AWAKE));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_timer_clock(NULL, 1));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_alarm_new(NULL, 1, &timer));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_timer_alarm_time(NULL, 1, &value));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_engine_wall_clock(NULL, &value));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_engine_simulate_suspend(NULL, 1));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_engine_set_wall_clock(NULL, 1));
}

static void bad_seconds_and_out_pointers(void) {
    tocsin_engine *engine = manual_engine();
    tocsin_timer timer = 7;
    const double bad[] = {NAN, -1, 0, -0.0, INFINITY, -INFINITY, 1e300, TOCSIN_MAX_SECONDS * 2};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CHECK_EQ(TOCSIN_EINVAL, tocsin_countdown_new(engine, bad[i], &timer));
    CHECK_EQ(7, timer); /* a failed call changes nothing */
    CHECK_EQ(TOCSIN_EINVAL, tocsin_countdown_new(engine, 1, NULL));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_stopwatch_new(engine, NULL));
    CHECK_EQ(TOCSIN_OK, tocsin_countdown_new(engine, TOCSIN_MAX_SECONDS, &timer));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_timer_set_tick(engine, timer, NAN));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_timer_set_tick(engine, timer, -0.5));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_timer_set_tick(engine, timer, INFINITY));
    CHECK_EQ(TOCSIN_OK, tocsin_timer_set_tick(engine, timer, 0));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_timer_elapsed(engine, timer, NULL));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_timer_remaining(engine, timer, NULL));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_timer_duration(engine, timer, NULL));
    CHECK_EQ(TOCSIN_IDLE, tocsin_timer_state(engine, timer));
    tocsin_engine_free(engine);
}

static void unknown_handles(void) {
    tocsin_engine *engine = manual_engine(), *other = manual_engine();
    tocsin_timer mine = 0, theirs = 0;
    CHECK_EQ(TOCSIN_OK, tocsin_countdown_new(engine, 1, &mine));
    CHECK_EQ(TOCSIN_OK, tocsin_countdown_new(other, 1, &theirs));
    CHECK(mine != 0 && theirs != 0 && mine != theirs);
    CHECK_EQ(TOCSIN_ENOENT, tocsin_timer_start(engine, 0));
    CHECK_EQ(TOCSIN_ENOENT, tocsin_timer_start(engine, theirs));
    CHECK_EQ(TOCSIN_ENOENT, tocsin_timer_state(engine, theirs));
    CHECK_EQ(TOCSIN_ENOENT, tocsin_timer_start(engine, mine + 1));
    CHECK_EQ(TOCSIN_ENOENT, tocsin_timer_start(engine, ~(tocsin_timer)0));
    CHECK_EQ(TOCSIN_OK, tocsin_timer_free(engine, mine));
    CHECK_EQ(TOCSIN_ENOENT, tocsin_timer_free(engine, mine)); /* double free */
    CHECK_EQ(TOCSIN_ENOENT, tocsin_timer_state(engine, mine));
    tocsin_timer again = 0;
    CHECK_EQ(TOCSIN_OK, tocsin_countdown_new(engine, 1, &again));
    CHECK(again != mine); /* the slot is reused, the handle is not */
    CHECK_EQ(TOCSIN_ENOENT, tocsin_timer_start(engine, mine));
    tocsin_engine_free(engine);
    tocsin_engine_free(other);
}

/* Every operation from every state: the allowed ones change state, the rest
 * return TOCSIN_ESTATE and change nothing. */
enum { OP_START, OP_SUSPEND, OP_RESUME, OP_CANCEL, OP_LAP, OP_COUNT };

static int apply(tocsin_engine *engine, tocsin_timer timer, int op) {
    switch (op) {
    case OP_START: return tocsin_timer_start(engine, timer);
    case OP_SUSPEND: return tocsin_timer_suspend(engine, timer);
    case OP_RESUME: return tocsin_timer_resume(engine, timer);
    case OP_CANCEL: return tocsin_timer_cancel(engine, timer);
    default: return tocsin_timer_lap(engine, timer, NULL);
    }
}

static int expected_state(int op, int state) {
    switch (op) {
    case OP_START: return state == TOCSIN_IDLE || state == TOCSIN_FINISHED || state == TOCSIN_CANCELED ? TOCSIN_RUNNING : -1;
    case OP_SUSPEND: return state == TOCSIN_RUNNING ? TOCSIN_SUSPENDED : -1;
    case OP_RESUME: return state == TOCSIN_SUSPENDED ? TOCSIN_RUNNING : -1;
    case OP_CANCEL: return state == TOCSIN_RUNNING || state == TOCSIN_SUSPENDED ? TOCSIN_CANCELED : -1;
    default: return state == TOCSIN_RUNNING || state == TOCSIN_SUSPENDED ? state : -1;
    }
}

static void state_table(void) {
    for (int state = TOCSIN_IDLE; state <= TOCSIN_CANCELED; state++) {
        for (int op = 0; op < OP_COUNT; op++) {
            tocsin_engine *engine = manual_engine();
            tocsin_timer timer = 0;
            tocsin_countdown_new(engine, 10, &timer);
            if (state != TOCSIN_IDLE) tocsin_timer_start(engine, timer);
            if (state == TOCSIN_SUSPENDED) tocsin_timer_suspend(engine, timer);
            if (state == TOCSIN_CANCELED) tocsin_timer_cancel(engine, timer);
            tocsin_engine_advance(engine, state == TOCSIN_FINISHED ? 10 : 1);
            CHECK_EQ(state, tocsin_timer_state(engine, timer));
            double before = 0, after = 0;
            tocsin_timer_elapsed(engine, timer, &before);
            int expected = expected_state(op, state);
            int rc = apply(engine, timer, op);
            if (expected < 0) {
                CHECK_EQ(TOCSIN_ESTATE, rc);
                CHECK_EQ(state, tocsin_timer_state(engine, timer));
                tocsin_timer_elapsed(engine, timer, &after);
                CHECK(before == after);
            } else {
                CHECK_EQ(TOCSIN_OK, rc);
                CHECK_EQ(expected, tocsin_timer_state(engine, timer));
            }
            tocsin_engine_free(engine);
        }
    }
}

static void countdown_with_ticks_folds_last_tick(void) {
    tocsin_engine *engine = manual_engine();
    static event_log log;
    atomic_store(&log.count, 0);
    tocsin_timer timer = logged_countdown(engine, 3, &log);
    CHECK_EQ(TOCSIN_OK, tocsin_timer_set_tick(engine, timer, 1));
    CHECK_EQ(TOCSIN_OK, tocsin_timer_start(engine, timer));
    CHECK_EQ(0, atomic_load(&log.count)); /* never inside the causing call */
    CHECK_EQ(1, tocsin_engine_advance(engine, 0.999999999));
    CHECK_EQ(4, tocsin_engine_advance(engine, 60));
    CHECK(!strcmp(event_summary(&log), "S1 T1 T2 F S3"));
    CHECK(log.events[1].elapsed == 1 && log.events[1].remaining == 2 && log.events[1].tick == 1);
    CHECK(log.delivered_at[1] == 1 && log.delivered_at[2] == 2);
    CHECK(log.events[3].kind == TOCSIN_EVENT_FINISH && log.events[3].remaining == 0 &&
          log.events[3].elapsed == 3 && log.events[3].lateness == 0);
    CHECK(log.delivered_at[3] == 3 && log.delivered_at[4] == 3);
    double now = 0;
    tocsin_engine_now(engine, &now);
    CHECK(now == 60.999999999);
    tocsin_engine_free(engine);
}

static void suspend_resume_is_exact(void) {
    tocsin_engine *engine = manual_engine();
    tocsin_timer timer = 0;
    double remaining = 0;
    tocsin_countdown_new(engine, 10, &timer);
    tocsin_timer_start(engine, timer);
    tocsin_engine_advance(engine, 3.25);
    CHECK_EQ(TOCSIN_OK, tocsin_timer_suspend(engine, timer));
    tocsin_engine_advance(engine, 1000);
    CHECK_EQ(TOCSIN_OK, tocsin_timer_remaining(engine, timer, &remaining));
    CHECK(remaining == 6.75);
    CHECK_EQ(TOCSIN_OK, tocsin_timer_resume(engine, timer));
    tocsin_engine_advance(engine, 6.749999999);
    CHECK_EQ(TOCSIN_RUNNING, tocsin_timer_state(engine, timer));
    tocsin_engine_advance(engine, 0.000000001);
    CHECK_EQ(TOCSIN_FINISHED, tocsin_timer_state(engine, timer));
    CHECK_EQ(TOCSIN_OK, tocsin_timer_remaining(engine, timer, &remaining));
    CHECK(remaining == 0);
    tocsin_engine_free(engine);
}

static void stopwatch_and_laps(void) {
    tocsin_engine *engine = manual_engine();
    tocsin_timer watch = 0;
    double value = 0, laps[4] = {0};
    CHECK_EQ(TOCSIN_OK, tocsin_stopwatch_new(engine, &watch));
    CHECK_EQ(TOCSIN_OK, tocsin_timer_remaining(engine, watch, &value));
    CHECK(value == -1);
    CHECK_EQ(TOCSIN_OK, tocsin_timer_duration(engine, watch, &value));
    CHECK(value == -1);
    CHECK_EQ(TOCSIN_ESTATE, tocsin_timer_lap(engine, watch, &value));
    tocsin_timer_start(engine, watch);
    tocsin_engine_advance(engine, 2);
    CHECK_EQ(TOCSIN_OK, tocsin_timer_lap(engine, watch, &value));
    CHECK(value == 2);
    tocsin_engine_advance(engine, 0.5);
    CHECK_EQ(TOCSIN_OK, tocsin_timer_lap(engine, watch, &value));
    CHECK(value == 0.5);
    CHECK_EQ(2, tocsin_timer_laps(engine, watch, NULL, 0));
    CHECK_EQ(2, tocsin_timer_laps(engine, watch, laps, 1));
    CHECK(laps[0] == 2 && laps[1] == 0);
    CHECK_EQ(2, tocsin_timer_laps(engine, watch, laps, 4));
    CHECK(laps[1] == 0.5);
    CHECK_EQ(TOCSIN_EINVAL, tocsin_timer_laps(engine, watch, NULL, 4));
    tocsin_engine_advance(engine, 1e6);
    CHECK_EQ(TOCSIN_OK, tocsin_timer_elapsed(engine, watch, &value));
    CHECK(value == 1e6 + 2.5);
    CHECK_EQ(TOCSIN_RUNNING, tocsin_timer_state(engine, watch));
    tocsin_engine_free(engine);
}

static void labels(void) {
    tocsin_engine *engine = manual_engine();
    tocsin_timer timer = 0;
    char buf[16];
    tocsin_countdown_new(engine, 1, &timer);
    CHECK_EQ(0, tocsin_timer_label(engine, timer, buf, sizeof buf));
    CHECK(buf[0] == 0);
    CHECK_EQ(TOCSIN_OK, tocsin_timer_set_label(engine, timer, "Tea"));
    CHECK_EQ(3, tocsin_timer_label(engine, timer, NULL, 0));
    CHECK_EQ(3, tocsin_timer_label(engine, timer, buf, sizeof buf));
    CHECK(!strcmp(buf, "Tea"));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_timer_label(engine, timer, NULL, 4));
    /* "é" is two bytes: a 4-byte buffer holds "aé" (3 bytes), a 3-byte one
       holds "a" alone, never half of "é". */
    CHECK_EQ(TOCSIN_OK, tocsin_timer_set_label(engine, timer, "a\xc3\xa9z"));
    CHECK_EQ(4, tocsin_timer_label(engine, timer, buf, 4));
    CHECK(!strcmp(buf, "a\xc3\xa9"));
    CHECK_EQ(4, tocsin_timer_label(engine, timer, buf, 3));
    CHECK(!strcmp(buf, "a"));
    CHECK_EQ(4, tocsin_timer_label(engine, timer, buf, 1));
    CHECK(buf[0] == 0);
    CHECK_EQ(TOCSIN_EINVAL, tocsin_timer_set_label(engine, timer, "bad \xff utf8"));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_timer_set_label(engine, timer, "\xc3"));
    char *huge = malloc(1 << 20);
    memset(huge, 'x', (1 << 20) - 1);
    huge[(1 << 20) - 1] = 0;
    CHECK_EQ(TOCSIN_EINVAL, tocsin_timer_set_label(engine, timer, huge));
    huge[TOCSIN_LABEL_MAX] = 0;
    CHECK_EQ(TOCSIN_OK, tocsin_timer_set_label(engine, timer, huge));
    CHECK_EQ(TOCSIN_LABEL_MAX, tocsin_timer_label(engine, timer, NULL, 0));
    free(huge);
    CHECK_EQ(TOCSIN_OK, tocsin_timer_set_label(engine, timer, NULL));
    CHECK_EQ(0, tocsin_timer_label(engine, timer, buf, sizeof buf));
    tocsin_engine_free(engine);
}

static void equal_deadlines_fire_in_start_order(void) {
    tocsin_engine *engine = manual_engine();
    static event_log log;
    atomic_store(&log.count, 0);
    tocsin_timer timers[8];
    for (int i = 0; i < 8; i++) timers[i] = logged_countdown(engine, 1, &log);
    for (int i = 7; i >= 0; i--) tocsin_timer_start(engine, timers[i]);
    tocsin_engine_advance(engine, 1);
    int finish = 0;
    for (int i = 0; i < atomic_load(&log.count); i++)
        if (log.events[i].kind == TOCSIN_EVENT_FINISH) CHECK(log.events[i].timer == timers[7 - finish++]);
    CHECK_EQ(8, finish);
    tocsin_engine_free(engine);
}

/* Callbacks that reach back into the engine. */
typedef struct {
    tocsin_timer victim;     /* cancelled by the first FINISH */
    tocsin_timer created;    /* made and started inside a callback */
    event_log *log;
    int self_frees;
} reentry;

static void reentrant_callback(tocsin_engine *engine, const tocsin_event *event, void *data) {
    reentry *r = data;
    record_event(engine, event, r->log);
    if (event->kind != TOCSIN_EVENT_FINISH) return;
    CHECK_EQ(TOCSIN_OK, tocsin_timer_cancel(engine, r->victim));
    CHECK_EQ(TOCSIN_ESTATE, tocsin_engine_advance(engine, 1)); /* no nested delivery */
    CHECK_EQ(TOCSIN_OK, tocsin_countdown_new(engine, 2, &r->created));
    tocsin_timer_set_callback(engine, r->created, record_event, r->log);
    CHECK_EQ(TOCSIN_OK, tocsin_timer_start(engine, r->created));
    double now = 0;
    tocsin_engine_now(engine, &now);
    CHECK(now == 1); /* the clock reads the event's due time */
}

static void callbacks_cancel_and_create_timers(void) {
    tocsin_engine *engine = manual_engine();
    static event_log log;
    atomic_store(&log.count, 0);
    reentry r = {0, 0, &log, 0};
    tocsin_timer first = 0;
    tocsin_countdown_new(engine, 1, &first);
    tocsin_timer_set_callback(engine, first, reentrant_callback, &r);
    r.victim = logged_countdown(engine, 1, &log); /* due at the same instant */
    tocsin_timer_start(engine, first);
    tocsin_timer_start(engine, r.victim);
    tocsin_engine_advance(engine, 5);
    /* first: S1 F S3; victim: S1 then S4, no FINISH; created: S1 F S3 at t=3. */
    CHECK(!strcmp(event_summary(&log), "S1 S1 F S3 S4 S1 F S3"));
    CHECK(log.events[6].timer == r.created && log.delivered_at[6] == 3);
    CHECK_EQ(TOCSIN_CANCELED, tocsin_timer_state(engine, r.victim));
    tocsin_engine_free(engine);
}

static void free_self_in_callback(tocsin_engine *engine, const tocsin_event *event, void *data) {
    atomic_int *calls = data;
    atomic_fetch_add(calls, 1);
    if (event->kind == TOCSIN_EVENT_TICK) CHECK_EQ(TOCSIN_OK, tocsin_timer_free(engine, event->timer));
}

static void timer_frees_itself_in_its_callback(void) {
    tocsin_engine *engine = manual_engine();
    static atomic_int calls;
    atomic_store(&calls, 0);
    tocsin_timer watch = 0;
    tocsin_stopwatch_new(engine, &watch);
    tocsin_timer_set_tick(engine, watch, 0.25);
    tocsin_timer_set_callback(engine, watch, free_self_in_callback, &calls);
    tocsin_timer_start(engine, watch);
    tocsin_engine_advance(engine, 10);
    CHECK_EQ(2, atomic_load(&calls)); /* STATE(RUNNING), TICK 1, then nothing */
    CHECK_EQ(TOCSIN_ENOENT, tocsin_timer_state(engine, watch));
    tocsin_engine_free(engine);
}

static void free_engine_in_callback(tocsin_engine *engine, const tocsin_event *event, void *data) {
    atomic_int *calls = data;
    atomic_fetch_add(calls, 1);
    if (event->kind == TOCSIN_EVENT_FINISH) {
        tocsin_engine_free(engine);
        tocsin_timer timer = 0;
        CHECK_EQ(TOCSIN_ECLOSED, tocsin_countdown_new(engine, 1, &timer));
        CHECK_EQ(TOCSIN_ECLOSED, tocsin_timer_state(engine, event->timer));
    }
}

static void engine_freed_inside_its_own_callback(void) {
    tocsin_engine *engine = manual_engine();
    static atomic_int calls;
    atomic_store(&calls, 0);
    for (int i = 0; i < 3; i++) {
        tocsin_timer timer = 0;
        tocsin_countdown_new(engine, 1, &timer);
        tocsin_timer_set_callback(engine, timer, free_engine_in_callback, &calls);
        tocsin_timer_start(engine, timer);
    }
    /* Three STATE(RUNNING), then the first FINISH frees the engine: nothing more. */
    tocsin_engine_advance(engine, 2);
    CHECK_EQ(4, atomic_load(&calls));
    /* engine is gone now; it must not be used again. */
}

static void many_timers(void) {
    tocsin_engine *engine = manual_engine();
    enum { N = 100000 };
    static tocsin_timer timers[N];
    static event_log log;
    atomic_store(&log.count, 0);
    unsigned seed = 7;
    for (int i = 0; i < N; i++) {
        seed = seed * 1103515245u + 12345u;
        CHECK_EQ(TOCSIN_OK, tocsin_countdown_new(engine, 1 + (seed >> 16) % 1000, &timers[i]));
        tocsin_timer_start(engine, timers[i]);
    }
    for (int i = 0; i < N; i += 2) CHECK_EQ(TOCSIN_OK, tocsin_timer_cancel(engine, timers[i]));
    tocsin_engine_advance(engine, 2000);
    int finished = 0;
    for (int i = 0; i < N; i++) finished += tocsin_timer_state(engine, timers[i]) == TOCSIN_FINISHED;
    CHECK_EQ(N / 2, finished);
    for (int i = 0; i < N; i++) CHECK_EQ(TOCSIN_OK, tocsin_timer_free(engine, timers[i]));
    tocsin_engine_free(engine);
}

static void count_finishes(tocsin_engine *engine, const tocsin_event *event, void *data) {
    (void)engine;
    if (event->kind == TOCSIN_EVENT_FINISH) (*(long *)data)++;
}

static void a_million_armed_timers(void) {
    tocsin_engine *engine = manual_engine();
    enum { N = 1000000 };
    long finishes = 0;
    unsigned seed = 11;
    for (int i = 0; i < N; i++) {
        tocsin_timer timer = 0;
        seed = seed * 1103515245u + 12345u;
        if (tocsin_countdown_new(engine, 1 + (seed >> 8) % 2000000 * 1e-6, &timer) != TOCSIN_OK) break;
        tocsin_timer_set_callback(engine, timer, count_finishes, &finishes);
        tocsin_timer_start(engine, timer);
    }
    CHECK_EQ(N, tocsin_engine_advance(engine, 0.5)); /* N x STATE(RUNNING); all due from 1 s on */
    CHECK_EQ(0, finishes);
    CHECK_EQ(2 * N, tocsin_engine_advance(engine, 3)); /* N x (FINISH, STATE) */
    CHECK_EQ(N, finishes);
    tocsin_engine_free(engine);
}

/* Rows of the bad-input table not covered above. */
static void ticks_and_labels_at_the_edges(void) {
    tocsin_engine *engine = manual_engine();
    static event_log log;
    atomic_store(&log.count, 0);
    tocsin_timer timer = logged_countdown(engine, 2, &log);
    CHECK_EQ(TOCSIN_OK, tocsin_timer_set_tick(engine, timer, 5)); /* longer than the countdown: no ticks */
    tocsin_timer_start(engine, timer);
    tocsin_engine_advance(engine, 3);
    CHECK(!strcmp(event_summary(&log), "S1 F S3"));
    CHECK_EQ(TOCSIN_OK, tocsin_timer_set_label(engine, timer, "")); /* empty: no label */
    CHECK_EQ(0, tocsin_timer_label(engine, timer, NULL, 0));
    char buf[4] = "xyz";
    CHECK_EQ(0, tocsin_timer_label(engine, timer, buf, (size_t)-1)); /* a size_t above INT64_MAX */
    CHECK(buf[0] == 0);
    tocsin_engine_free(engine);
}

const test_case manual_tests[] = {
    {"ticks_and_labels_at_the_edges", ticks_and_labels_at_the_edges},
    {"a_million_armed_timers", a_million_armed_timers},
    {"version_and_errors", version_and_errors},
    {"engine_arguments", engine_arguments},
    {"null_engine_everywhere", null_engine_everywhere},
    {"close_keeps_the_pointer_valid", close_keeps_the_pointer_valid},
    {"observers_see_every_timer_first", observers_see_every_timer_first},
    {"bad_seconds_and_out_pointers", bad_seconds_and_out_pointers},
    {"unknown_handles", unknown_handles},
    {"state_table", state_table},
    {"countdown_with_ticks_folds_last_tick", countdown_with_ticks_folds_last_tick},
    {"suspend_resume_is_exact", suspend_resume_is_exact},
    {"stopwatch_and_laps", stopwatch_and_laps},
    {"labels", labels},
    {"equal_deadlines_fire_in_start_order", equal_deadlines_fire_in_start_order},
    {"callbacks_cancel_and_create_timers", callbacks_cancel_and_create_timers},
    {"timer_frees_itself_in_its_callback", timer_frees_itself_in_its_callback},
    {"engine_freed_inside_its_own_callback", engine_freed_inside_its_own_callback},
    {"many_timers", many_timers},
    {NULL, NULL},
};
