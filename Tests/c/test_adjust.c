/* tocsin_timer_adjust on a manual clock: every state, finishing by
   adjustment, ticks after it, restarts, and saving an adjusted run. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"

static tocsin_engine *engine_with_countdown(double seconds, event_log *log, tocsin_timer *timer) {
    tocsin_engine *engine = NULL;
    CHECK_EQ(TOCSIN_OK, tocsin_engine_new(TOCSIN_ENGINE_MANUAL_CLOCK, &engine));
    atomic_store(&log->count, 0);
    CHECK_EQ(TOCSIN_OK, tocsin_countdown_new(engine, seconds, timer));
    CHECK_EQ(TOCSIN_OK, tocsin_timer_set_callback(engine, *timer, record_event, log));
    return engine;
}

static double remaining(tocsin_engine *engine, tocsin_timer timer) {
    double value = -2;
    CHECK_EQ(TOCSIN_OK, tocsin_timer_remaining(engine, timer, &value));
    return value;
}

static void running_countdown_moves_its_end_exactly(void) {
    static event_log log;
    tocsin_timer timer = 0;
    tocsin_engine *engine = engine_with_countdown(10, &log, &timer);
    CHECK_EQ(TOCSIN_OK, tocsin_timer_start(engine, timer));
    tocsin_engine_advance(engine, 4);
    CHECK_EQ(TOCSIN_OK, tocsin_timer_adjust(engine, timer, 5));
    CHECK_EQ(1, atomic_load(&log.count)); /* STATE(RUNNING) of the start only: never inside the call */
    CHECK(remaining(engine, timer) == 11);
    double duration = 0;
    tocsin_timer_duration(engine, timer, &duration);
    CHECK(duration == 15);
    CHECK_EQ(1, tocsin_engine_advance(engine, 0)); /* the adjustment's STATE */
    CHECK(log.events[1].kind == TOCSIN_EVENT_STATE && log.events[1].state == TOCSIN_RUNNING &&
          log.events[1].remaining == 11 && log.events[1].elapsed == 4);
    tocsin_engine_advance(engine, 10.999999999);
    CHECK_EQ(TOCSIN_RUNNING, tocsin_timer_state(engine, timer));
    tocsin_engine_advance(engine, 0.000000001);
    CHECK_EQ(TOCSIN_FINISHED, tocsin_timer_state(engine, timer));
    CHECK(!strcmp(event_summary(&log), "S1 S1 F S3"));
    CHECK(log.events[2].elapsed == 15 && log.events[2].lateness == 0);
    /* Shorter: the end comes sooner, exactly. */
    atomic_store(&log.count, 0);
    CHECK_EQ(TOCSIN_OK, tocsin_timer_start(engine, timer)); /* restart: the created 10 s */
    tocsin_engine_advance(engine, 2);
    CHECK_EQ(TOCSIN_OK, tocsin_timer_adjust(engine, timer, -7.5));
    CHECK(remaining(engine, timer) == 0.5);
    tocsin_engine_advance(engine, 0.499999999);
    CHECK_EQ(TOCSIN_RUNNING, tocsin_timer_state(engine, timer));
    tocsin_engine_advance(engine, 0.000000001);
    CHECK(!strcmp(event_summary(&log), "S1 S1 F S3"));
    tocsin_engine_free(engine);
}

static void shortening_to_the_elapsed_time_finishes_now(void) {
    static event_log log;
    tocsin_timer timer = 0;
    tocsin_engine *engine = engine_with_countdown(10, &log, &timer);
    tocsin_timer_start(engine, timer);
    tocsin_engine_advance(engine, 6);
    CHECK_EQ(TOCSIN_OK, tocsin_timer_adjust(engine, timer, -8)); /* 2 s < 6 s elapsed */
    CHECK_EQ(1, atomic_load(&log.count));
    CHECK(remaining(engine, timer) == 0);
    CHECK_EQ(2, tocsin_engine_advance(engine, 0)); /* FINISH, STATE(FINISHED): no STATE(RUNNING) */
    CHECK(!strcmp(event_summary(&log), "S1 F S3"));
    CHECK(log.events[1].elapsed == 2 && log.events[1].remaining == 0 && log.events[1].lateness == 0);
    CHECK(log.delivered_at[1] == 6); /* due at the adjustment, not back in the past */
    tocsin_engine_free(engine);
}

static void idle_and_suspended_keep_above_the_elapsed_time(void) {
    static event_log log;
    tocsin_timer timer = 0;
    tocsin_engine *engine = engine_with_countdown(10, &log, &timer);
    CHECK_EQ(TOCSIN_OK, tocsin_timer_adjust(engine, timer, 2));  /* IDLE: 12 s */
    CHECK_EQ(TOCSIN_EINVAL, tocsin_timer_adjust(engine, timer, -12)); /* would be 0 */
    CHECK(remaining(engine, timer) == 12);
    tocsin_timer_start(engine, timer);
    tocsin_engine_advance(engine, 5);
    tocsin_timer_suspend(engine, timer);
    CHECK_EQ(TOCSIN_EINVAL, tocsin_timer_adjust(engine, timer, -7)); /* 5 s: not above 5 s elapsed */
    CHECK(remaining(engine, timer) == 7);
    CHECK_EQ(TOCSIN_OK, tocsin_timer_adjust(engine, timer, -6.5));
    CHECK(remaining(engine, timer) == 0.5);
    tocsin_engine_advance(engine, 100);
    CHECK_EQ(TOCSIN_SUSPENDED, tocsin_timer_state(engine, timer));
    CHECK(!strcmp(event_summary(&log), "S0 S1 S2 S2"));
    CHECK(log.events[0].remaining == 12 && log.events[3].remaining == 0.5);
    tocsin_timer_resume(engine, timer);
    tocsin_engine_advance(engine, 0.5);
    CHECK_EQ(TOCSIN_FINISHED, tocsin_timer_state(engine, timer));
    tocsin_engine_free(engine);
}

static void finished_countdown_gets_one_more_minute(void) {
    static event_log log;
    tocsin_timer timer = 0;
    tocsin_engine *engine = engine_with_countdown(3, &log, &timer);
    tocsin_timer_set_tick(engine, timer, 1);
    tocsin_timer_start(engine, timer);
    tocsin_engine_advance(engine, 3);
    CHECK_EQ(TOCSIN_FINISHED, tocsin_timer_state(engine, timer));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_timer_adjust(engine, timer, -1));
    CHECK_EQ(TOCSIN_OK, tocsin_timer_adjust(engine, timer, 60));
    CHECK_EQ(TOCSIN_RUNNING, tocsin_timer_state(engine, timer));
    double elapsed = 0;
    tocsin_timer_elapsed(engine, timer, &elapsed);
    CHECK(elapsed == 3 && remaining(engine, timer) == 60);
    tocsin_engine_advance(engine, 1.5);
    CHECK(!strcmp(event_summary(&log), "S1 T1 T2 F S3 S1 T4"));
    CHECK(log.events[5].remaining == 60 && log.events[5].elapsed == 3);
    tocsin_engine_advance(engine, 58.5);
    CHECK_EQ(TOCSIN_FINISHED, tocsin_timer_state(engine, timer));
    /* The tick at the new end (62 s) folds into the FINISH. */
    int count = atomic_load(&log.count);
    CHECK(log.events[count - 3].kind == TOCSIN_EVENT_TICK && log.events[count - 3].tick == 62);
    CHECK(log.events[count - 2].kind == TOCSIN_EVENT_FINISH && log.events[count - 2].elapsed == 63);
    /* A restart runs the created 3 s again. */
    tocsin_timer_start(engine, timer);
    CHECK(remaining(engine, timer) == 3);
    tocsin_engine_free(engine);
}

static void bad_arguments_change_nothing(void) {
    static event_log log;
    tocsin_timer timer = 0, watch = 0;
    tocsin_engine *engine = engine_with_countdown(10, &log, &timer);
    tocsin_stopwatch_new(engine, &watch);
    CHECK_EQ(TOCSIN_EINVAL, tocsin_timer_adjust(NULL, timer, 1));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_timer_adjust(engine, timer, NAN));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_timer_adjust(engine, timer, INFINITY));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_timer_adjust(engine, timer, -INFINITY));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_timer_adjust(engine, timer, 0));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_timer_adjust(engine, timer, TOCSIN_MAX_SECONDS));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_timer_adjust(engine, timer, 1e300));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_timer_adjust(engine, watch, 1));
    CHECK_EQ(TOCSIN_ENOENT, tocsin_timer_adjust(engine, 0, 1));
    CHECK_EQ(TOCSIN_ENOENT, tocsin_timer_adjust(engine, timer + 1000, 1));
    CHECK_EQ(TOCSIN_OK, tocsin_timer_adjust(engine, timer, TOCSIN_MAX_SECONDS - 10)); /* exactly the limit */
    CHECK(remaining(engine, timer) == TOCSIN_MAX_SECONDS);
    tocsin_timer_start(engine, timer);
    tocsin_timer_cancel(engine, timer);
    CHECK_EQ(TOCSIN_ESTATE, tocsin_timer_adjust(engine, timer, 1));
    tocsin_engine_close(engine);
    CHECK_EQ(TOCSIN_ECLOSED, tocsin_timer_adjust(engine, timer, 1));
    tocsin_engine_free(engine);
}

static void an_adjusted_run_is_saved_and_restored(void) {
    static event_log log;
    tocsin_timer timer = 0;
    tocsin_engine *engine = engine_with_countdown(10, &log, &timer);
    tocsin_timer_start(engine, timer);
    tocsin_engine_advance(engine, 1);
    tocsin_timer_adjust(engine, timer, 20);
    tocsin_timer_suspend(engine, timer);
    char path[] = "/tmp/tocsin-adjust-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);
    CHECK_EQ(TOCSIN_OK, tocsin_engine_save(engine, path));
    tocsin_engine *other = NULL;
    tocsin_engine_new(TOCSIN_ENGINE_MANUAL_CLOCK, &other);
    size_t count = 0;
    CHECK_EQ(TOCSIN_OK, tocsin_engine_load(other, path, &count));
    tocsin_timer restored = 0;
    tocsin_engine_timers(other, &restored, 1);
    CHECK(remaining(other, restored) == 29);
    tocsin_timer_cancel(other, restored);
    tocsin_timer_start(other, restored); /* a restart: the created 10 s */
    CHECK(remaining(other, restored) == 10);
    unlink(path);
    tocsin_engine_free(other);
    tocsin_engine_free(engine);
}

const test_case adjust_tests[] = {
    {"running_countdown_moves_its_end_exactly", running_countdown_moves_its_end_exactly},
    {"shortening_to_the_elapsed_time_finishes_now", shortening_to_the_elapsed_time_finishes_now},
    {"idle_and_suspended_keep_above_the_elapsed_time", idle_and_suspended_keep_above_the_elapsed_time},
    {"finished_countdown_gets_one_more_minute", finished_countdown_gets_one_more_minute},
    {"bad_arguments_change_nothing", bad_arguments_change_nothing},
    {"an_adjusted_run_is_saved_and_restored", an_adjusted_run_is_saved_and_restored},
    {NULL, NULL},
};
