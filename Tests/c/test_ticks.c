/* Tick policies: TOCSIN_TICKS_COALESCE after a long advance, around other
   timers' events, and on a real clock after a stall. */
#include <stdlib.h>
#include <string.h>
#include <poll.h>

#include "harness.h"

static tocsin_engine *manual(void) {
    tocsin_engine *engine = NULL;
    CHECK_EQ(TOCSIN_OK, tocsin_engine_new(TOCSIN_ENGINE_MANUAL_CLOCK, &engine));
    return engine;
}

static tocsin_timer ticking(tocsin_engine *engine, double seconds, double tick, int policy, event_log *log) {
    tocsin_timer timer = 0;
    CHECK_EQ(TOCSIN_OK, tocsin_countdown_new(engine, seconds, &timer));
    CHECK_EQ(TOCSIN_OK, tocsin_timer_set_callback(engine, timer, record_event, log));
    CHECK_EQ(TOCSIN_OK, tocsin_timer_set_tick(engine, timer, tick));
    CHECK_EQ(TOCSIN_OK, tocsin_timer_set_tick_policy(engine, timer, policy));
    return timer;
}

static void a_long_advance_gives_one_coalesced_tick(void) {
    static event_log log;
    atomic_store(&log.count, 0);
    tocsin_engine *engine = manual();
    tocsin_timer timer = ticking(engine, 3600, 0.1, TOCSIN_TICKS_COALESCE, &log);
    tocsin_timer_start(engine, timer);
    CHECK_EQ(2, tocsin_engine_advance(engine, 1000));
    CHECK(!strcmp(event_summary(&log), "S1 T10000"));
    CHECK(log.events[1].missed == 9999 && log.events[1].elapsed == 1000 && log.events[1].lateness == 0);
    CHECK(log.events[0].missed == 0);
    CHECK_EQ(1, tocsin_engine_advance(engine, 0.1)); /* the next one alone: nothing missed */
    CHECK(log.events[2].tick == 10001 && log.events[2].missed == 0);
    /* Up to the end: the tick at 3600 s folds into the FINISH. */
    CHECK_EQ(3, tocsin_engine_advance(engine, 5000));
    CHECK(!strcmp(event_summary(&log), "S1 T10000 T10001 T35999 F S3"));
    CHECK(log.events[3].missed == 35999 - 10002);
    tocsin_engine_free(engine);
}

static void every_tick_is_the_default(void) {
    static event_log log;
    atomic_store(&log.count, 0);
    tocsin_engine *engine = manual();
    tocsin_timer timer = ticking(engine, 10, 1, TOCSIN_TICKS_EVERY, &log);
    tocsin_timer_start(engine, timer);
    CHECK_EQ(6, tocsin_engine_advance(engine, 5));
    CHECK(!strcmp(event_summary(&log), "S1 T1 T2 T3 T4 T5"));
    CHECK(log.events[5].missed == 0);
    CHECK_EQ(TOCSIN_EINVAL, tocsin_timer_set_tick_policy(engine, timer, 2));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_timer_set_tick_policy(engine, timer, -1));
    CHECK_EQ(TOCSIN_ENOENT, tocsin_timer_set_tick_policy(engine, 0, TOCSIN_TICKS_EVERY));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_timer_set_tick_policy(NULL, timer, TOCSIN_TICKS_EVERY));
    tocsin_engine_free(engine);
}

static void coalescing_stops_at_other_events(void) {
    static event_log log;
    atomic_store(&log.count, 0);
    tocsin_engine *engine = manual();
    tocsin_timer ticker = ticking(engine, 100, 0.1, TOCSIN_TICKS_COALESCE, &log);
    tocsin_timer egg = 0;
    tocsin_countdown_new(engine, 2, &egg);
    tocsin_timer_set_callback(engine, egg, record_event, &log);
    tocsin_timer_start(engine, ticker); /* started first: its tick at 2 s goes before the egg's finish */
    tocsin_timer_start(engine, egg);
    tocsin_engine_advance(engine, 5);
    CHECK(!strcmp(event_summary(&log), "S1 S1 T20 F S3 T50"));
    CHECK(log.events[2].timer == ticker && log.events[2].missed == 19 && log.delivered_at[2] == 2);
    CHECK(log.events[3].timer == egg && log.delivered_at[3] == 2);
    CHECK(log.events[5].missed == 29 && log.delivered_at[5] == 5);
    tocsin_engine_free(engine);
}

static void a_stalled_host_gets_one_tick_on_a_real_clock(void) {
    static event_log log;
    atomic_store(&log.count, 0);
    tocsin_engine *engine = NULL;
    CHECK_EQ(TOCSIN_OK, tocsin_engine_new(TOCSIN_ENGINE_POLLED, &engine));
    tocsin_timer timer = ticking(engine, 60, 0.01, TOCSIN_TICKS_COALESCE, &log);
    tocsin_timer_start(engine, timer);
    sleep_ms(200); /* the host does not dispatch: a stall */
    tocsin_engine_dispatch(engine);
    int count = atomic_load(&log.count);
    CHECK(count == 2); /* STATE(RUNNING), then one TICK */
    if (count == 2) {
        CHECK(log.events[1].kind == TOCSIN_EVENT_TICK && log.events[1].missed >= 10);
        CHECK(log.events[1].tick == log.events[1].missed + 1);
        CHECK_NEAR(log.events[1].tick * 0.01, log.events[1].elapsed, 1e-9);
        CHECK(log.events[1].lateness >= 0);
    }
    tocsin_engine_free(engine);
}

/* Leeway: each event falls due at the first multiple of the leeway at or
   after its deadline; lateness counts from the deadline. */
static void leeway_moves_events_onto_its_grid(void) {
    static event_log log;
    atomic_store(&log.count, 0);
    tocsin_engine *engine = manual();
    tocsin_engine_advance(engine, 0.3);
    tocsin_timer watch = 0;
    CHECK_EQ(TOCSIN_OK, tocsin_stopwatch_new(engine, &watch));
    CHECK_EQ(TOCSIN_OK, tocsin_timer_set_callback(engine, watch, record_event, &log));
    CHECK_EQ(TOCSIN_OK, tocsin_timer_set_tick(engine, watch, 1));
    CHECK_EQ(TOCSIN_OK, tocsin_timer_set_leeway(engine, watch, 1));
    double leeway = -1;
    CHECK_EQ(TOCSIN_OK, tocsin_timer_leeway(engine, watch, &leeway));
    CHECK(leeway == 1.0);
    tocsin_timer_start(engine, watch); /* ticks due at 1.3, 2.3 s fire at 2, 3 s */
    CHECK_EQ(1, tocsin_engine_advance(engine, 1.699));
    CHECK_EQ(1, tocsin_engine_advance(engine, 0.001));
    CHECK_EQ(1, tocsin_engine_advance(engine, 1));
    CHECK(!strcmp(event_summary(&log), "S1 T1 T2"));
    for (int i = 1; i <= 2; i++) {
        CHECK_NEAR(0.7, log.events[i].lateness, 1e-9);
        CHECK_NEAR(i, log.events[i].elapsed, 1e-9);
        CHECK_NEAR(i + 1, log.delivered_at[i], 1e-9);
    }
    /* Bad leeways are refused and change nothing. */
    CHECK_EQ(TOCSIN_EINVAL, tocsin_timer_set_leeway(engine, watch, -0.001));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_timer_set_leeway(engine, watch, NAN));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_timer_set_leeway(engine, watch, INFINITY));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_timer_set_leeway(engine, watch, TOCSIN_LEEWAY_MAX_SECONDS + 1));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_timer_leeway(engine, watch, NULL));
    CHECK_EQ(TOCSIN_ENOENT, tocsin_timer_set_leeway(engine, 0, 1));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_timer_set_leeway(NULL, watch, 1));
    CHECK_EQ(TOCSIN_OK, tocsin_timer_leeway(engine, watch, &leeway));
    CHECK(leeway == 1.0);
    CHECK_EQ(TOCSIN_OK, tocsin_timer_set_leeway(engine, watch, TOCSIN_LEEWAY_MAX_SECONDS));
    CHECK_EQ(TOCSIN_OK, tocsin_timer_set_leeway(engine, watch, 0));
    CHECK_EQ(TOCSIN_OK, tocsin_timer_leeway(engine, watch, &leeway));
    CHECK(leeway == 0.0);
    tocsin_engine_free(engine);
}

/* On the engine's own thread: 20 stopwatches ticking every 0.2 s at
   scattered phases, leeway 0.2 s. No tick is delivered before the grid
   point its deadline rounds up to, and their deadlines fall on few points. */
static void leeway_on_a_real_clock_is_never_before_the_grid(void) {
    static event_log log;
    atomic_store(&log.count, 0);
    tocsin_engine *engine = NULL;
    CHECK_EQ(TOCSIN_OK, tocsin_engine_new(TOCSIN_ENGINE_DEFAULT, &engine));
    for (int i = 0; i < 20; i++) {
        tocsin_timer watch = 0;
        CHECK_EQ(TOCSIN_OK, tocsin_stopwatch_new(engine, &watch));
        CHECK_EQ(TOCSIN_OK, tocsin_timer_set_events(engine, watch, TOCSIN_EVENTS_TICK));
        CHECK_EQ(TOCSIN_OK, tocsin_timer_set_callback(engine, watch, record_event, &log));
        CHECK_EQ(TOCSIN_OK, tocsin_timer_set_tick(engine, watch, 0.2));
        CHECK_EQ(TOCSIN_OK, tocsin_timer_set_leeway(engine, watch, 0.2));
        CHECK_EQ(TOCSIN_OK, tocsin_timer_start(engine, watch));
        sleep_ms(7);
    }
    CHECK(wait_for(&log.count, 60, 30000));
    int count = atomic_load(&log.count);
    double grid[MAX_EVENTS];
    int points = 0;
    for (int i = 0; i < count; i++) {
        double due = log.delivered_at[i] - log.events[i].lateness;
        double point = ceil(due / 0.2 - 1e-9) * 0.2;
        CHECK(log.events[i].lateness >= 0);
        CHECK(log.delivered_at[i] >= point - 1e-6);
        int known = 0;
        for (int j = 0; j < points; j++) known |= fabs(grid[j] - point) < 1e-6;
        if (!known) grid[points++] = point;
    }
    /* 60+ ticks on at most one point per 0.2 s they span (plus one). */
    double span = log.delivered_at[count - 1] - log.delivered_at[0];
    CHECK(points <= (int)(span / 0.2) + 2);
    tocsin_engine_free(engine);
}

const test_case ticks_tests[] = {
    {"a_long_advance_gives_one_coalesced_tick", a_long_advance_gives_one_coalesced_tick},
    {"every_tick_is_the_default", every_tick_is_the_default},
    {"coalescing_stops_at_other_events", coalescing_stops_at_other_events},
    {"a_stalled_host_gets_one_tick_on_a_real_clock", a_stalled_host_gets_one_tick_on_a_real_clock},
    {"leeway_moves_events_onto_its_grid", leeway_moves_events_onto_its_grid},
    {"leeway_on_a_real_clock_is_never_before_the_grid", leeway_on_a_real_clock_is_never_before_the_grid},
    {NULL, NULL},
};
