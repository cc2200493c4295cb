/* Clocks per timer, wall-clock alarms and the simulated machine: the rules
   on a manual clock, then the real clocks. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"

static tocsin_engine *manual_engine(void) {
    tocsin_engine *engine = NULL;
    CHECK_EQ(TOCSIN_OK, tocsin_engine_new(TOCSIN_ENGINE_MANUAL_CLOCK, &engine));
    return engine;
}

static double remaining(tocsin_engine *engine, tocsin_timer timer) {
    double value = -2;
    CHECK_EQ(TOCSIN_OK, tocsin_timer_remaining(engine, timer, &value));
    return value;
}

static double elapsed(tocsin_engine *engine, tocsin_timer timer) {
    double value = -2;
    CHECK_EQ(TOCSIN_OK, tocsin_timer_elapsed(engine, timer, &value));
    return value;
}

static double wall(tocsin_engine *engine) {
    double value = -2;
    CHECK_EQ(TOCSIN_OK, tocsin_engine_wall_clock(engine, &value));
    return value;
}

static tocsin_timer watched_alarm(tocsin_engine *engine, double at, event_log *log) {
    tocsin_timer alarm = 0;
    atomic_store(&log->count, 0);
    CHECK_EQ(TOCSIN_OK, tocsin_alarm_new(engine, at, &alarm));
    CHECK_EQ(TOCSIN_OK, tocsin_timer_set_callback(engine, alarm, record_event, log));
    return alarm;
}

static void awake_timers_stand_still_through_a_suspend(void) {
    static event_log log;
    tocsin_engine *engine = manual_engine();
    tocsin_timer boot = 0, awake = 0;
    tocsin_countdown_new(engine, 10, &boot);
    tocsin_countdown_new(engine, 10, &awake);
    CHECK_EQ(TOCSIN_CLOCK_BOOT, tocsin_timer_clock(engine, awake));
    CHECK_EQ(TOCSIN_OK, tocsin_timer_set_clock(engine, awake, TOCSIN_CLOCK_AWAKE));
    CHECK_EQ(TOCSIN_CLOCK_AWAKE, tocsin_timer_clock(engine, awake));
    tocsin_timer_set_callback(engine, boot, record_event, &log);
    tocsin_timer_set_callback(engine, awake, record_event, &log);
    tocsin_timer_start(engine, boot);
    tocsin_timer_start(engine, awake);
    CHECK_EQ(TOCSIN_ESTATE, tocsin_timer_set_clock(engine, awake, TOCSIN_CLOCK_BOOT)); /* IDLE only */
    tocsin_engine_advance(engine, 4);
    CHECK_EQ(2, tocsin_engine_simulate_suspend(engine, 3600)); /* the boot one's FINISH, STATE */
    double now = 0;
    tocsin_engine_now(engine, &now);
    CHECK(now == 3604);
    CHECK(remaining(engine, awake) == 6 && elapsed(engine, awake) == 4);
    CHECK(!strcmp(event_summary(&log), "S1 S1 F S3"));
    CHECK(log.events[2].timer == boot && log.events[2].lateness == 3594);
    tocsin_engine_advance(engine, 5.999999999);
    CHECK_EQ(TOCSIN_RUNNING, tocsin_timer_state(engine, awake));
    tocsin_engine_advance(engine, 0.000000001);
    CHECK_EQ(TOCSIN_FINISHED, tocsin_timer_state(engine, awake));
    CHECK(log.events[4].timer == awake && log.events[4].lateness == 0);
    tocsin_engine_free(engine);
}

static void coalesced_ticks_after_a_suspend(void) {
    static event_log log;
    tocsin_engine *engine = manual_engine();
    tocsin_timer boot = 0, awake = 0;
    atomic_store(&log.count, 0);
    tocsin_stopwatch_new(engine, &boot);
    tocsin_stopwatch_new(engine, &awake);
    tocsin_timer_set_clock(engine, awake, TOCSIN_CLOCK_AWAKE);
    for (int i = 0; i < 2; i++) {
        tocsin_timer timer = i ? awake : boot;
        tocsin_timer_set_tick(engine, timer, 1);
        tocsin_timer_set_tick_policy(engine, timer, TOCSIN_TICKS_COALESCE);
        tocsin_timer_set_events(engine, timer, TOCSIN_EVENTS_TICK);
        tocsin_timer_set_callback(engine, timer, record_event, &log);
        tocsin_timer_start(engine, timer);
    }
    tocsin_engine_advance(engine, 0.5);
    CHECK_EQ(1, tocsin_engine_simulate_suspend(engine, 100)); /* one coalesced tick, the boot one's */
    CHECK(log.events[0].timer == boot && log.events[0].tick == 100 && log.events[0].missed == 99);
    CHECK_EQ(2, tocsin_engine_advance(engine, 0.5));
    CHECK(log.events[1].timer == boot && log.events[1].tick == 101 && log.events[1].missed == 0);
    CHECK(log.events[2].timer == awake && log.events[2].tick == 1 && log.events[2].missed == 0);
    tocsin_engine_free(engine);
}

static void an_alarm_follows_the_wall_clock_both_ways(void) {
    static event_log log;
    tocsin_engine *engine = manual_engine();
    CHECK(wall(engine) == 0);
    CHECK_EQ(0, tocsin_engine_set_wall_clock(engine, 10000));
    tocsin_timer alarm = watched_alarm(engine, 10100, &log);
    double at = 0;
    CHECK_EQ(TOCSIN_OK, tocsin_timer_alarm_time(engine, alarm, &at));
    CHECK(at == 10100);
    CHECK_EQ(TOCSIN_IDLE, tocsin_timer_state(engine, alarm));
    CHECK(remaining(engine, alarm) == 100);
    tocsin_timer_start(engine, alarm);
    tocsin_engine_advance(engine, 10);
    /* Back an hour: it rings an hour later; the time it ran stays. */
    CHECK_EQ(0, tocsin_engine_set_wall_clock(engine, 10010 - 3600));
    CHECK(remaining(engine, alarm) == 3690 && elapsed(engine, alarm) == 10);
    tocsin_engine_advance(engine, 3000);
    CHECK_EQ(TOCSIN_RUNNING, tocsin_timer_state(engine, alarm));
    /* Forward past its time: FINISH at once, late by the wall time past it. */
    CHECK_EQ(2, tocsin_engine_set_wall_clock(engine, 10130));
    CHECK(!strcmp(event_summary(&log), "S1 F S3"));
    CHECK(log.events[1].lateness == 30 && log.events[1].elapsed == 3010);
    double now = 0;
    tocsin_engine_now(engine, &now);
    CHECK(log.delivered_at[1] == now && now == 3010);
    tocsin_engine_free(engine);
}

static void an_alarm_is_never_early_and_never_moved_by_the_boot_clock(void) {
    static event_log log;
    tocsin_engine *engine = manual_engine();
    tocsin_engine_set_wall_clock(engine, 50);
    tocsin_timer alarm = watched_alarm(engine, 60, &log);
    tocsin_timer_start(engine, alarm);
    tocsin_engine_advance(engine, 9.999999999);
    CHECK_EQ(TOCSIN_RUNNING, tocsin_timer_state(engine, alarm));
    tocsin_engine_advance(engine, 0.000000001);
    CHECK_EQ(TOCSIN_FINISHED, tocsin_timer_state(engine, alarm));
    CHECK(wall(engine) == 60);
    /* Across a simulated suspend the wall clock moves on too: it rings late. */
    tocsin_timer later = watched_alarm(engine, 70, &log);
    tocsin_timer_start(engine, later);
    tocsin_engine_simulate_suspend(engine, 15);
    CHECK(!strcmp(event_summary(&log), "S1 F S3"));
    CHECK(log.events[1].lateness == 5);
    tocsin_engine_free(engine);
}

static void an_alarm_suspends_restarts_and_adjusts(void) {
    static event_log log;
    tocsin_engine *engine = manual_engine();
    tocsin_engine_set_wall_clock(engine, 100);
    tocsin_timer alarm = watched_alarm(engine, 110, &log);
    tocsin_timer_start(engine, alarm);
    tocsin_engine_advance(engine, 2);
    tocsin_timer_suspend(engine, alarm);
    tocsin_engine_advance(engine, 5);
    CHECK(remaining(engine, alarm) == 3 && elapsed(engine, alarm) == 2);
    tocsin_engine_advance(engine, 10); /* its time passes while suspended: no ring */
    CHECK_EQ(TOCSIN_SUSPENDED, tocsin_timer_state(engine, alarm));
    CHECK(remaining(engine, alarm) == 0);
    CHECK_EQ(TOCSIN_EINVAL, tocsin_timer_adjust(engine, alarm, -1)); /* suspended: must stay ahead */
    CHECK_EQ(TOCSIN_OK, tocsin_timer_adjust(engine, alarm, 60));   /* now 170, 53 s ahead */
    CHECK(remaining(engine, alarm) == 53);
    tocsin_timer_resume(engine, alarm);
    tocsin_engine_advance(engine, 53);
    CHECK_EQ(TOCSIN_FINISHED, tocsin_timer_state(engine, alarm));
    /* Snooze: a positive delta from FINISHED rings it again that long from now. */
    CHECK_EQ(TOCSIN_OK, tocsin_timer_adjust(engine, alarm, 300));
    double at = 0;
    tocsin_timer_alarm_time(engine, alarm, &at);
    CHECK(at == 470);
    tocsin_engine_advance(engine, 300);
    CHECK_EQ(TOCSIN_FINISHED, tocsin_timer_state(engine, alarm));
    /* A restart aims at its (passed) time: finishes at once, after its STATE. */
    atomic_store(&log.count, 0);
    tocsin_timer_start(engine, alarm);
    CHECK_EQ(3, tocsin_engine_advance(engine, 0));
    CHECK(!strcmp(event_summary(&log), "S1 F S3"));
    tocsin_engine_free(engine);
}

static void bad_arguments_change_nothing(void) {
    tocsin_engine *engine = manual_engine();
    tocsin_timer timer = 0, alarm = 0;
    CHECK_EQ(TOCSIN_EINVAL, tocsin_alarm_new(engine, -1, &alarm));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_alarm_new(engine, NAN, &alarm));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_alarm_new(engine, INFINITY, &alarm));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_alarm_new(engine, TOCSIN_MAX_SECONDS * 2, &alarm));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_alarm_new(engine, 5, NULL));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_alarm_new(NULL, 5, &alarm));
    CHECK_EQ(0, alarm);
    CHECK_EQ(TOCSIN_OK, tocsin_alarm_new(engine, 5, &alarm));
    tocsin_countdown_new(engine, 1, &timer);
    CHECK_EQ(TOCSIN_EINVAL, tocsin_timer_set_clock(engine, timer, 2));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_timer_set_clock(engine, timer, -1));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_timer_set_clock(engine, alarm, TOCSIN_CLOCK_AWAKE));
    CHECK_EQ(TOCSIN_ENOENT, tocsin_timer_set_clock(engine, 12345, TOCSIN_CLOCK_AWAKE));
    CHECK_EQ(TOCSIN_ENOENT, tocsin_timer_clock(engine, 12345));
    double out = -7;
    CHECK_EQ(TOCSIN_EINVAL, tocsin_timer_alarm_time(engine, timer, &out));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_timer_alarm_time(engine, alarm, NULL));
    CHECK(out == -7);
    CHECK_EQ(TOCSIN_EINVAL, tocsin_engine_simulate_suspend(engine, -1));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_engine_simulate_suspend(engine, NAN));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_engine_set_wall_clock(engine, -0.5));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_engine_set_wall_clock(engine, INFINITY));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_engine_wall_clock(engine, NULL));
    CHECK(wall(engine) == 0);
    tocsin_engine *polled = NULL;
    tocsin_engine_new(TOCSIN_ENGINE_POLLED, &polled);
    CHECK_EQ(TOCSIN_ESTATE, tocsin_engine_simulate_suspend(polled, 1));
    CHECK_EQ(TOCSIN_ESTATE, tocsin_engine_set_wall_clock(polled, 1));
    tocsin_engine_free(polled);
    tocsin_engine_close(engine);
    CHECK_EQ(TOCSIN_ECLOSED, tocsin_alarm_new(engine, 5, &alarm));
    CHECK_EQ(TOCSIN_ECLOSED, tocsin_engine_wall_clock(engine, &out));
    CHECK_EQ(TOCSIN_ECLOSED, tocsin_engine_set_wall_clock(engine, 1));
    tocsin_engine_free(engine);
}

/* ---- real clocks ---- */

static double realtime_seconds(void) {
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    return (double)now.tv_sec + (double)now.tv_nsec / 1e9;
}

static double finished_at_wall[2];
static atomic_int finished;

static void note_finish(tocsin_engine *engine, const tocsin_event *event, void *user_data) {
    (void)engine;
    if (event->kind != TOCSIN_EVENT_FINISH) return;
    finished_at_wall[(intptr_t)user_data] = realtime_seconds();
    atomic_fetch_add(&finished, 1);
}

static void the_wall_clock_is_clock_realtime(void) {
    tocsin_engine *engine = NULL;
    CHECK_EQ(TOCSIN_OK, tocsin_engine_new(TOCSIN_ENGINE_DEFAULT, &engine));
    double before = realtime_seconds();
    double read = wall(engine);
    double after = realtime_seconds();
    CHECK(read >= before - 1e-6 && read <= after + 1e-6);
    tocsin_engine_free(engine);
}

static void awake_and_boot_timers_and_an_alarm_fire_on_real_clocks(void) {
    tocsin_engine *engine = NULL;
    CHECK_EQ(TOCSIN_OK, tocsin_engine_new(TOCSIN_ENGINE_DEFAULT, &engine));
    atomic_store(&finished, 0);
    tocsin_timer boot = 0, awake = 0, alarm = 0;
    tocsin_countdown_new(engine, 0.2, &boot);
    tocsin_countdown_new(engine, 0.2, &awake);
    CHECK_EQ(TOCSIN_OK, tocsin_timer_set_clock(engine, awake, TOCSIN_CLOCK_AWAKE));
    tocsin_timer_set_callback(engine, boot, note_finish, (void *)0);
    tocsin_timer_set_callback(engine, awake, note_finish, (void *)1);
    double start = boot_seconds();
    tocsin_timer_start(engine, boot);
    tocsin_timer_start(engine, awake);
    CHECK(wait_for(&finished, 2, 5000));
    CHECK(boot_seconds() - start >= 0.2);
    /* An alarm a second ahead: never before the wall clock reads its time. */
    double target = realtime_seconds() + 1;
    atomic_store(&finished, 0);
    CHECK_EQ(TOCSIN_OK, tocsin_alarm_new(engine, target, &alarm));
    tocsin_timer_set_callback(engine, alarm, note_finish, (void *)0);
    tocsin_timer_start(engine, alarm);
    CHECK_NEAR(1, remaining(engine, alarm), 0.05);
    CHECK(wait_for(&finished, 1, 5000));
    CHECK(finished_at_wall[0] >= target);
    CHECK(finished_at_wall[0] - target < 0.5);
    tocsin_engine_free(engine);
}

/* Moves the real wall clock by seconds (either way); 0 if not allowed. */
static int shift_wall_clock(double seconds) {
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    double target = (double)now.tv_sec + (double)now.tv_nsec / 1e9 + seconds;
    struct timespec set = {(time_t)target, (long)((target - (double)(time_t)target) * 1e9)};
    return clock_settime(CLOCK_REALTIME, &set) == 0;
}

/* Asked to set the clock, a process that may not (no CAP_SYS_TIME) fails:
   a skip would hide that the test never ran where it was meant to. */
#define FAIL_AND_RETURN_CANNOT_SET                                                     \
    do {                                                                               \
        CHECK(!"TOCSIN_TEST_SET_CLOCK=1, but this process may not set the wall clock"); \
        return;                                                                        \
    } while (0)

/* Whether the run may set the host's wall clock (see below). */
static int setting_the_clock_asked(void) {
    const char *opt_in = getenv("TOCSIN_TEST_SET_CLOCK");
    return opt_in && strcmp(opt_in, "1") == 0;
}

/* The real wall clock set back, then forward past an alarm, by this test.
   It sets the host's clock, so it runs only when asked:
   TOCSIN_TEST_SET_CLOCK=1 (.ci/run sets it) and a process that may set the
   clock (root with CAP_SYS_TIME); a developer's machine keeps its clock.
   The clock is put back to where it would have been, to the microsecond,
   within about three seconds. */
static void an_alarm_follows_real_wall_clock_changes(void) {
    struct timespec real0, mono0;
    if (!setting_the_clock_asked()) SKIP("sets the host's wall clock; TOCSIN_TEST_SET_CLOCK=1 runs it");
    clock_gettime(CLOCK_MONOTONIC, &mono0);
    clock_gettime(CLOCK_REALTIME, &real0);
    if (!shift_wall_clock(0)) FAIL_AND_RETURN_CANNOT_SET;
    static event_log log;
    atomic_store(&log.count, 0);
    tocsin_engine *engine = NULL;
    CHECK_EQ(TOCSIN_OK, tocsin_engine_new(TOCSIN_ENGINE_DEFAULT, &engine));
    tocsin_timer alarm = 0;
    double start = boot_seconds();
    double target = realtime_seconds() + 1;
    tocsin_alarm_new(engine, target, &alarm);
    tocsin_timer_set_events(engine, alarm, TOCSIN_EVENTS_FINISH);
    tocsin_timer_set_callback(engine, alarm, record_event, &log);
    tocsin_timer_start(engine, alarm);
    /* Back 2 s: it must not ring when the boot clock says 1 s is up. */
    CHECK(shift_wall_clock(-2));
    sleep_ms(1800); /* nothing rings meanwhile */
    CHECK_EQ(0, atomic_load(&log.count));
    /* The wall clock is 2 s behind: 3 s less the time since the start are left. */
    double asked = boot_seconds();
    double left = remaining(engine, alarm);
    double answered = boot_seconds();
    CHECK(left >= 3.0 - (answered - start) - 0.01 && left <= 3.0 - (asked - start) + 0.01);
    /* Forward 3 s: the wall clock reads past its time by the time since the
       start: it rings at once, late by that. */
    double jumping = boot_seconds();
    CHECK(shift_wall_clock(3));
    CHECK(wait_for(&log.count, 1, 10000));
    double rang = log.delivered_at[0]; /* the engine's boot clock as it delivered */
    CHECK(rang - jumping < 0.3);
    CHECK(rang - start > 1.7);
    CHECK(log.events[0].lateness >= jumping - start - 0.01 && log.events[0].lateness <= rang - start + 0.01);
    /* Put the clock back where it would be. */
    struct timespec mono1;
    clock_gettime(CLOCK_MONOTONIC, &mono1);
    long long elapsed = (long long)(mono1.tv_sec - mono0.tv_sec) * 1000000000LL + (mono1.tv_nsec - mono0.tv_nsec);
    long long restored = (long long)real0.tv_sec * 1000000000LL + real0.tv_nsec + elapsed;
    struct timespec back = {(time_t)(restored / 1000000000LL), (long)(restored % 1000000000LL)};
    CHECK_EQ(0, clock_settime(CLOCK_REALTIME, &back));
    tocsin_engine_free(engine);
}

static double cpu_seconds(void) {
    struct timespec now;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
    return (double)now.tv_sec + (double)now.tv_nsec / 1e9;
}

/* After its alarms are gone, a clock change must not wake the engine: its
   wall timer is disarmed, not left to report changes nobody reads (the
   engine thread would spin on the readable fd). */
static void no_wakeups_for_clock_changes_once_alarms_are_gone(void) {
    if (!setting_the_clock_asked()) SKIP("sets the host's wall clock (by 0 s); TOCSIN_TEST_SET_CLOCK=1 runs it");
    if (!shift_wall_clock(0)) FAIL_AND_RETURN_CANNOT_SET;
    tocsin_engine *engine = NULL;
    CHECK_EQ(TOCSIN_OK, tocsin_engine_new(TOCSIN_ENGINE_DEFAULT, &engine));
    tocsin_timer alarm = 0;
    tocsin_alarm_new(engine, realtime_seconds() + 0.05, &alarm);
    tocsin_timer_start(engine, alarm);
    /* It rings (the round after disarms the wall timer: one wake-up at most). */
    for (int waited = 0; waited < 10000 && tocsin_timer_state(engine, alarm) != TOCSIN_FINISHED; waited++) sleep_ms(1);
    CHECK_EQ(TOCSIN_FINISHED, tocsin_timer_state(engine, alarm));
    CHECK(shift_wall_clock(0));
    double cpu = cpu_seconds();
    sleep_ms(300);
    CHECK(cpu_seconds() - cpu < 0.05);
    tocsin_engine_free(engine);
}

const test_case clocks_tests[] = {
    {"awake_timers_stand_still_through_a_suspend", awake_timers_stand_still_through_a_suspend},
    {"coalesced_ticks_after_a_suspend", coalesced_ticks_after_a_suspend},
    {"an_alarm_follows_the_wall_clock_both_ways", an_alarm_follows_the_wall_clock_both_ways},
    {"an_alarm_is_never_early_and_never_moved_by_the_boot_clock",
     an_alarm_is_never_early_and_never_moved_by_the_boot_clock},
    {"an_alarm_suspends_restarts_and_adjusts", an_alarm_suspends_restarts_and_adjusts},
    {"bad_arguments_change_nothing", bad_arguments_change_nothing},
    {"the_wall_clock_is_clock_realtime", the_wall_clock_is_clock_realtime},
    {"awake_and_boot_timers_and_an_alarm_fire_on_real_clocks", awake_and_boot_timers_and_an_alarm_fire_on_real_clocks},
    {"an_alarm_follows_real_wall_clock_changes", an_alarm_follows_real_wall_clock_changes},
    {"no_wakeups_for_clock_changes_once_alarms_are_gone", no_wakeups_for_clock_changes_once_alarms_are_gone},
    {NULL, NULL},
};
