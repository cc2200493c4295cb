/* Bounded rounds (tocsin.h, BOUNDED ROUNDS): a 1 ns tick asks for a billion
   ticks a second; in every mode a round delivers at most TOCSIN_TICK_BURST
   of them one by one and folds the rest, with numbers, `missed` and
   `elapsed` exact, and calls from callbacks and other threads get in.
   Before rounds were bounded, each of these hung (a watchdog ends them). */
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"

/* What a timer's ticks added up to, checked as they come. */
typedef struct {
    atomic_int callbacks;       /* every event */
    atomic_int states;          /* STATE events */
    atomic_int canceled;        /* STATE(CANCELED) seen */
    atomic_int ticks_after_cancel;
    atomic_llong tick_events;   /* TICK events */
    atomic_llong ticks_at_cancel; /* TICK events when another thread's cancel returned */
    atomic_int round_callbacks; /* callbacks in the current round */
    int most_in_a_round;
    uint64_t last_tick;         /* the last TICK's number */
    uint64_t accounted;         /* sum of 1 + missed over TICKs: equals last_tick if none is lost */
    uint64_t folded;            /* TICKs that carried a `missed` */
    int out_of_order;           /* a TICK not after the last one */
    int drifted;                /* elapsed not exactly tick x interval */
    uint64_t interval_ns;
    uint64_t cancel_at_tick;    /* the callback cancels its timer at this tick (0: never) */
} tally;

static void count(tocsin_engine *engine, const tocsin_event *event, void *context) {
    tally *t = context;
    atomic_fetch_add(&t->callbacks, 1);
    atomic_fetch_add(&t->round_callbacks, 1);
    if (event->kind == TOCSIN_EVENT_STATE) {
        atomic_fetch_add(&t->states, 1);
        if (event->state == TOCSIN_CANCELED) atomic_store(&t->canceled, 1);
        return;
    }
    if (event->kind != TOCSIN_EVENT_TICK) return;
    atomic_fetch_add(&t->tick_events, 1);
    if (atomic_load(&t->canceled)) atomic_fetch_add(&t->ticks_after_cancel, 1);
    if (event->tick <= t->last_tick) t->out_of_order++;
    if ((uint64_t)llround(event->elapsed * 1e9) != event->tick * t->interval_ns) t->drifted++;
    t->last_tick = event->tick;
    t->accounted += 1 + event->missed;
    if (event->missed) t->folded++;
    if (t->cancel_at_tick && event->tick >= t->cancel_at_tick) {
        CHECK_EQ(TOCSIN_OK, tocsin_timer_cancel(engine, event->timer));
        t->cancel_at_tick = 0;
    }
}

static void end_round(tally *t) {
    int in_round = atomic_exchange(&t->round_callbacks, 0);
    if (in_round > t->most_in_a_round) t->most_in_a_round = in_round;
}

static void check_numbering(tally *t) {
    CHECK_EQ(0, t->out_of_order);
    CHECK_EQ(0, t->drifted);
    CHECK(t->accounted == t->last_tick); /* every tick delivered or counted as missed */
}

static tocsin_timer ticking(tocsin_engine *engine, int stopwatch, double tick, int policy, tally *t) {
    tocsin_timer timer = 0;
    if (stopwatch) CHECK_EQ(TOCSIN_OK, tocsin_stopwatch_new(engine, &timer));
    else CHECK_EQ(TOCSIN_OK, tocsin_countdown_new(engine, 30, &timer));
    CHECK_EQ(TOCSIN_OK, tocsin_timer_set_callback(engine, timer, count, t));
    CHECK_EQ(TOCSIN_OK, tocsin_timer_set_tick(engine, timer, tick));
    CHECK_EQ(TOCSIN_OK, tocsin_timer_set_tick_policy(engine, timer, policy));
    t->interval_ns = 1;
    return timer;
}

static void a_manual_second_of_1ns_ticks_is_one_burst_and_one_fold(void) {
    static tally t;
    memset(&t, 0, sizeof t);
    tocsin_engine *engine = NULL;
    CHECK_EQ(TOCSIN_OK, tocsin_engine_new(TOCSIN_ENGINE_MANUAL_CLOCK, &engine));
    /* 5e-324 s, the least double above 0, is 1 ns (any time above 0 is). */
    tocsin_timer timer = ticking(engine, 0, 5e-324, TOCSIN_TICKS_EVERY, &t);
    CHECK_EQ(TOCSIN_OK, tocsin_timer_start(engine, timer));
    /* STATE, the burst one by one, then tick 10^9 (at exactly 1 s) for the rest. */
    CHECK_EQ(1 + TOCSIN_TICK_BURST + 1, tocsin_engine_advance(engine, 1));
    CHECK(t.last_tick == 1000000000ULL);
    CHECK_EQ(1, t.folded);
    check_numbering(&t);
    /* A microsecond more: a thousand ticks, one by one, nothing missed. */
    CHECK_EQ(1000, tocsin_engine_advance(engine, 1e-6));
    CHECK(t.last_tick == 1000001000ULL && t.folded == 1);
    check_numbering(&t);
    /* Up to the end (30 s): the last tick before it, then the FINISH. */
    int delivered = tocsin_engine_advance(engine, 40);
    CHECK(delivered > 0 && delivered <= TOCSIN_TICK_BURST + 3);
    CHECK(t.last_tick == 29999999999ULL); /* the one at 30 s folds into the FINISH */
    check_numbering(&t);
    tocsin_engine_free(engine);
}

static void a_callback_cancels_its_1ns_ticker_within_the_burst(void) {
    static tally t;
    memset(&t, 0, sizeof t);
    tocsin_engine *engine = NULL;
    CHECK_EQ(TOCSIN_OK, tocsin_engine_new(TOCSIN_ENGINE_MANUAL_CLOCK, &engine));
    tocsin_timer timer = ticking(engine, 1, 1e-9, TOCSIN_TICKS_EVERY, &t);
    t.cancel_at_tick = 100;
    CHECK_EQ(TOCSIN_OK, tocsin_timer_start(engine, timer));
    CHECK_EQ(1 + 100 + 1, tocsin_engine_advance(engine, 3600)); /* STATE(RUNNING), 100 ticks, STATE(CANCELED) */
    CHECK(t.canceled && t.ticks_after_cancel == 0 && t.last_tick == 100);
    tocsin_engine_free(engine);
}

static void two_coalescing_1ns_tickers_fold_too(void) {
    /* Coalescing merges only ticks due before any other event: two 1 ns
       tickers alternate, one merged tick each, unless the round folds. */
    static tally a, b;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    tocsin_engine *engine = NULL;
    CHECK_EQ(TOCSIN_OK, tocsin_engine_new(TOCSIN_ENGINE_MANUAL_CLOCK, &engine));
    tocsin_timer first = ticking(engine, 1, 1e-9, TOCSIN_TICKS_COALESCE, &a);
    tocsin_timer second = ticking(engine, 1, 1e-9, TOCSIN_TICKS_COALESCE, &b);
    CHECK_EQ(TOCSIN_OK, tocsin_timer_start(engine, first));
    CHECK_EQ(TOCSIN_OK, tocsin_timer_start(engine, second));
    int delivered = tocsin_engine_advance(engine, 10);
    CHECK(delivered >= 4 && delivered <= 2 + TOCSIN_TICK_BURST + 2);
    CHECK(a.last_tick == 10000000000ULL && b.last_tick == 10000000000ULL);
    check_numbering(&a);
    check_numbering(&b);
    tocsin_engine_free(engine);
}

static void a_polled_host_keeps_turning_with_a_1ns_ticker(void) {
    static tally t;
    memset(&t, 0, sizeof t);
    tocsin_engine *engine = NULL;
    CHECK_EQ(TOCSIN_OK, tocsin_engine_new(TOCSIN_ENGINE_POLLED, &engine));
    tocsin_timer timer = ticking(engine, 1, 1e-9, TOCSIN_TICKS_EVERY, &t);
    CHECK_EQ(TOCSIN_OK, tocsin_timer_start(engine, timer));
    struct pollfd watch = {.fd = tocsin_engine_fd(engine), .events = POLLIN};
    int turns = 0;
    for (; turns < 50; turns++) { /* the host's loop: each turn returns */
        CHECK_EQ(1, poll(&watch, 1, 5000));
        int delivered = tocsin_engine_dispatch(engine);
        CHECK(delivered >= 0 && delivered <= TOCSIN_TICK_BURST + 2);
        end_round(&t);
    }
    CHECK(t.folded > 0);
    check_numbering(&t);
    /* Cancelled between two turns: no tick of that run after it. */
    CHECK_EQ(TOCSIN_OK, tocsin_timer_cancel(engine, timer));
    while (poll(&watch, 1, 0) == 1 && tocsin_engine_dispatch(engine) > 0) end_round(&t);
    CHECK(t.canceled && t.ticks_after_cancel == 0);
    CHECK(t.most_in_a_round <= TOCSIN_TICK_BURST + 2);
    tocsin_engine_free(engine);
}

typedef struct {
    tocsin_engine *engine;
    tocsin_timer timer;
    tally *tally;
} cancel_job;

static void *cancel_later(void *argument) {
    cancel_job *job = argument;
    /* Two bursts' worth of ticks (the second round folds), however slow the
       machine (sanitizers), 30 s at most. */
    for (int waited = 0; atomic_load(&job->tally->tick_events) <= 2 * TOCSIN_TICK_BURST && waited < 30000; waited++)
        sleep_ms(1);
    CHECK_EQ(TOCSIN_OK, tocsin_timer_cancel(job->engine, job->timer));
    atomic_store(&job->tally->ticks_at_cancel, atomic_load(&job->tally->tick_events));
    return NULL;
}

static void another_thread_cancels_a_1ns_ticker_on_the_engine_thread(void) {
    static tally t;
    memset(&t, 0, sizeof t);
    tocsin_engine *engine = NULL;
    CHECK_EQ(TOCSIN_OK, tocsin_engine_new(TOCSIN_ENGINE_DEFAULT, &engine));
    tocsin_timer timer = ticking(engine, 1, 1e-9, TOCSIN_TICKS_EVERY, &t);
    CHECK_EQ(TOCSIN_OK, tocsin_timer_start(engine, timer));
    pthread_t canceller;
    cancel_job job = {engine, timer, &t};
    pthread_create(&canceller, NULL, cancel_later, &job);
    pthread_join(canceller, NULL);
    CHECK(wait_for(&t.canceled, 1, 10000));
    /* After the cancel returned, no tick of that run. */
    CHECK(atomic_load(&t.tick_events) == atomic_load(&t.ticks_at_cancel));
    CHECK_EQ(0, t.ticks_after_cancel);
    CHECK(t.last_tick > TOCSIN_TICK_BURST); /* it ran long enough to fold */
    check_numbering(&t);
    tocsin_engine_free(engine);
}

static void hung(int signal) {
    (void)signal;
    static const char text[] = "test_bounded: a test still runs after 120 s: a round did not end\n";
    (void)!write(2, text, sizeof text - 1);
    _exit(1);
}

static void start_watchdog(void) {
    signal(SIGALRM, hung);
    alarm(120);
}

static void stop_watchdog(void) {
    alarm(0);
}

const test_case bounded_tests[] = {
    {"start_watchdog", start_watchdog},
    {"a_manual_second_of_1ns_ticks_is_one_burst_and_one_fold", a_manual_second_of_1ns_ticks_is_one_burst_and_one_fold},
    {"a_callback_cancels_its_1ns_ticker_within_the_burst", a_callback_cancels_its_1ns_ticker_within_the_burst},
    {"two_coalescing_1ns_tickers_fold_too", two_coalescing_1ns_tickers_fold_too},
    {"a_polled_host_keeps_turning_with_a_1ns_ticker", a_polled_host_keeps_turning_with_a_1ns_ticker},
    {"another_thread_cancels_a_1ns_ticker_on_the_engine_thread", another_thread_cancels_a_1ns_ticker_on_the_engine_thread},
    {"stop_watchdog", stop_watchdog},
    {NULL, NULL},
};
