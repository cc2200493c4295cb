/* Calendar alarms: tocsin_calendar_next against known occurrences (the
   oracle comparison at scale is in the Swift tests), bad input, and the
   timer's rules on a manual clock. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"

/* 2027-03-26, a Friday, 06:00 UTC. */
#define FRI_0600 1806040800.0
#define HOUR 3600.0
#define DAY 86400.0

static double next_after(const char *spec, double after) {
    double out = -1;
    CHECK_EQ(TOCSIN_OK, tocsin_calendar_next(spec, after, &out));
    return out;
}

static void next_occurrences_in_zones(void) {
    CHECK_EQ(FRI_0600 + HOUR, next_after("Mon..Fri 07:00 UTC", FRI_0600));
    /* Friday 07:00 passed: Monday 07:00 CEST (05:00 UTC; Berlin changed on the 28th). */
    CHECK_EQ(1806296400.0, next_after("Mon..Fri 07:00 Europe/Berlin", FRI_0600 + 2 * HOUR));
    /* Strictly after: an occurrence at the given time is not the answer. */
    CHECK_EQ(FRI_0600 + HOUR + 15 * 60, next_after("*:0/15 UTC", FRI_0600 + HOUR));
    CHECK_EQ(FRI_0600 + HOUR, next_after("*:0/15 UTC", FRI_0600 + HOUR - 0.5));
    /* 02:30 is skipped in Berlin on 2027-03-28: it rings at the change, 01:00 UTC. */
    CHECK_EQ(1806195600.0, next_after("*-*-* 02:30 Europe/Berlin", 1806148800.0));
    /* 02:30 happens twice on 2027-10-31: once, at the first (00:30 UTC), then the next day. */
    CHECK_EQ(1824942600.0, next_after("*-*-* 02:30 Europe/Berlin", 1824897600.0 + 12 * HOUR - 1));
    CHECK_EQ(1825032600.0, next_after("*-*-* 02:30 Europe/Berlin", 1824942600.0));
    /* The last day of the month, and a shorthand with a zone. */
    CHECK_EQ(1806451200.0, next_after("*-*~01 UTC", FRI_0600)); /* 2027-03-31 */
    CHECK_EQ(1806537600.0, next_after("daily UTC", 1806451200.0));
}

static void bad_specs_get_clear_errors(void) {
    double out = 7;
    CHECK_EQ(TOCSIN_EINVAL, tocsin_calendar_next("Mun 07:00", FRI_0600, &out));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_calendar_next("07:00 Mars/Olympus", FRI_0600, &out));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_calendar_next("*-*-* 25:00", FRI_0600, &out));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_calendar_next("", FRI_0600, &out));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_calendar_next(NULL, FRI_0600, &out));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_calendar_next("daily", FRI_0600, NULL));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_calendar_next("daily", NAN, &out));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_calendar_next("daily", INFINITY, &out));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_calendar_next("\xff\xfe", FRI_0600, &out));
    CHECK_EQ(TOCSIN_ERANGE, tocsin_calendar_next("2020-01-01 00:00", FRI_0600, &out));
    CHECK_EQ(7, out); /* untouched on failure */
    CHECK(strcmp(tocsin_err_name(TOCSIN_ERANGE), "TOCSIN_ERANGE") == 0);

    char text[256];
    CHECK_EQ(strlen("Mon..Fri *-*-* 07:00:00"), tocsin_calendar_check("mon..fri 7:00", text, sizeof text));
    CHECK(strcmp(text, "Mon..Fri *-*-* 07:00:00") == 0);
    CHECK_EQ(TOCSIN_EINVAL, tocsin_calendar_check("Mon..Fri 07:00 Mars/Olympus", text, sizeof text));
    CHECK(strcmp(text, "column 16: unknown time zone 'Mars/Olympus'") == 0);
    CHECK_EQ(TOCSIN_EINVAL, tocsin_calendar_check("Mon 07:61", text, sizeof text));
    CHECK(strncmp(text, "column ", 7) == 0);
    CHECK_EQ(TOCSIN_EINVAL, tocsin_calendar_check("daily", NULL, 4));
    CHECK_EQ(strlen("*-*-* 00:00:00"), tocsin_calendar_check("daily", NULL, 0));
    char small[6];
    CHECK_EQ(strlen("*-*-* 00:00:00"), tocsin_calendar_check("daily", small, sizeof small));
    CHECK(strcmp(small, "*-*-*") == 0);

    char *huge = malloc(1 << 20);
    memset(huge, '*', (1 << 20) - 1);
    huge[(1 << 20) - 1] = 0;
    CHECK_EQ(TOCSIN_EINVAL, tocsin_calendar_next(huge, FRI_0600, &out));
    free(huge);

    tocsin_engine *engine = NULL;
    tocsin_timer timer = 0;
    CHECK_EQ(TOCSIN_OK, tocsin_engine_new(TOCSIN_ENGINE_MANUAL_CLOCK, &engine));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_calendar_new(engine, "Mun", &timer));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_calendar_new(engine, "daily", NULL));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_calendar_new(engine, NULL, &timer));
    CHECK_EQ(TOCSIN_ERANGE, tocsin_calendar_new(engine, "1970-01-01 00:00 UTC", &timer)); /* the manual wall clock reads 0 */
    CHECK_EQ(0, timer);
    tocsin_countdown_new(engine, 5, &timer);
    char spec[64];
    CHECK_EQ(TOCSIN_EINVAL, tocsin_timer_calendar(engine, timer, spec, sizeof spec));
    CHECK_EQ(TOCSIN_ENOENT, tocsin_timer_calendar(engine, timer + 1, spec, sizeof spec));
    tocsin_engine_free(engine);
}

/* An empty file at the mkstemp template `path` (filled in). */
static void make_temporary(char *path) {
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);
}

static tocsin_engine *engine_at(double wall) {
    tocsin_engine *engine = NULL;
    CHECK_EQ(TOCSIN_OK, tocsin_engine_new(TOCSIN_ENGINE_MANUAL_CLOCK, &engine));
    tocsin_engine_set_wall_clock(engine, wall);
    return engine;
}

static double alarm_time(tocsin_engine *engine, tocsin_timer timer) {
    double value = -1;
    CHECK_EQ(TOCSIN_OK, tocsin_timer_alarm_time(engine, timer, &value));
    return value;
}

static double remaining_of(tocsin_engine *engine, tocsin_timer timer) {
    double value = -1;
    CHECK_EQ(TOCSIN_OK, tocsin_timer_remaining(engine, timer, &value));
    return value;
}

static tocsin_timer watched_calendar(tocsin_engine *engine, const char *spec, event_log *log) {
    tocsin_timer timer = 0;
    atomic_store(&log->count, 0);
    CHECK_EQ(TOCSIN_OK, tocsin_calendar_new(engine, spec, &timer));
    CHECK_EQ(TOCSIN_OK, tocsin_timer_set_callback(engine, timer, record_event, log));
    return timer;
}

static void rings_every_weekday_and_runs_on(void) {
    static event_log log;
    tocsin_engine *engine = engine_at(FRI_0600);
    tocsin_timer timer = watched_calendar(engine, "Mon..Fri 07:00 UTC", &log);
    char spec[64];
    CHECK_EQ(27, tocsin_timer_calendar(engine, timer, spec, sizeof spec));
    CHECK(strcmp(spec, "Mon..Fri *-*-* 07:00:00 UTC") == 0);
    CHECK_EQ(TOCSIN_IDLE, tocsin_timer_state(engine, timer));
    CHECK_EQ(FRI_0600 + HOUR, alarm_time(engine, timer));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_timer_adjust(engine, timer, 60));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_timer_set_clock(engine, timer, TOCSIN_CLOCK_AWAKE));
    CHECK_EQ(TOCSIN_OK, tocsin_timer_start(engine, timer));
    tocsin_engine_advance(engine, HOUR - 1);
    CHECK_EQ(1, atomic_load(&log.count)); /* STATE(RUNNING) only: never early */
    tocsin_engine_advance(engine, 1);
    CHECK_EQ(2, atomic_load(&log.count));
    tocsin_event ring = log.events[1];
    CHECK_EQ(TOCSIN_EVENT_FINISH, ring.kind);
    CHECK_EQ(TOCSIN_RUNNING, ring.state);
    CHECK_EQ(0, ring.missed);
    CHECK_NEAR(3 * DAY, ring.remaining, 1e-9); /* Friday to Monday */
    CHECK_NEAR(HOUR, ring.elapsed, 1e-9);
    CHECK_EQ(TOCSIN_RUNNING, tocsin_timer_state(engine, timer));
    CHECK_EQ(FRI_0600 + HOUR + 3 * DAY, alarm_time(engine, timer));
    /* Over the weekend and on to Wednesday: Monday, Tuesday, Wednesday, each at its time. */
    tocsin_engine_advance(engine, 5 * DAY);
    CHECK_EQ(5, atomic_load(&log.count));
    for (int i = 2; i < 5; i++) {
        CHECK_EQ(TOCSIN_EVENT_FINISH, log.events[i].kind);
        CHECK_EQ(TOCSIN_RUNNING, log.events[i].state);
        CHECK_EQ(0, log.events[i].missed);
        CHECK_NEAR(DAY, log.events[i].remaining, 1e-9);
    }
    CHECK_EQ(FRI_0600 + HOUR + 6 * DAY, alarm_time(engine, timer)); /* Thursday's */
    tocsin_engine_free(engine);
}

static void suspended_it_is_silent_and_resumed_rings_once_with_the_missed(void) {
    static event_log log;
    tocsin_engine *engine = engine_at(FRI_0600);
    tocsin_timer timer = watched_calendar(engine, "*-*-* 07:00 UTC", &log);
    tocsin_timer_start(engine, timer);
    tocsin_timer_suspend(engine, timer);
    tocsin_engine_advance(engine, 3 * DAY); /* Friday, Saturday, Sunday pass */
    CHECK_EQ(2, atomic_load(&log.count));  /* RUNNING, SUSPENDED */
    tocsin_timer_resume(engine, timer);
    tocsin_engine_advance(engine, 0);
    CHECK_EQ(4, atomic_load(&log.count)); /* RUNNING, then one FINISH at once */
    CHECK_EQ(TOCSIN_EVENT_FINISH, log.events[3].kind);
    CHECK_EQ(TOCSIN_RUNNING, log.events[3].state);
    CHECK_EQ(2, log.events[3].missed);
    CHECK_NEAR(HOUR, log.events[3].remaining, 1e-9); /* Monday 07:00 */
    /* Cancelled and started again: the next occurrence after now. */
    tocsin_timer_cancel(engine, timer);
    tocsin_engine_advance(engine, 2 * DAY);
    CHECK_EQ(5, atomic_load(&log.count));
    CHECK_EQ(FRI_0600 + 5 * DAY + HOUR, alarm_time(engine, timer)); /* idle and cancelled: follows now */
    tocsin_timer_start(engine, timer);
    tocsin_engine_advance(engine, HOUR);
    CHECK_EQ(7, atomic_load(&log.count));
    CHECK_EQ(0, log.events[6].missed);
    tocsin_engine_free(engine);
}

static void wall_clock_jumps_ring_once_and_never_twice(void) {
    static event_log log;
    tocsin_engine *engine = engine_at(FRI_0600);
    tocsin_timer timer = watched_calendar(engine, "*-*-* 07:00 UTC", &log);
    tocsin_timer_start(engine, timer);
    /* Forward past three occurrences: one ring at once, two missed. */
    tocsin_engine_advance(engine, 0); /* STATE(RUNNING) */
    CHECK_EQ(1, tocsin_engine_set_wall_clock(engine, FRI_0600 + 2 * DAY + 2 * HOUR));
    CHECK_EQ(TOCSIN_EVENT_FINISH, log.events[1].kind);
    CHECK_EQ(2, log.events[1].missed);
    CHECK_NEAR(DAY - HOUR, log.events[1].remaining, 1e-9);
    /* Back over the occurrence that rang: it does not ring again. */
    CHECK_EQ(0, tocsin_engine_set_wall_clock(engine, FRI_0600 + 2 * DAY));
    tocsin_engine_advance(engine, HOUR);
    CHECK_EQ(2, atomic_load(&log.count));
    CHECK_NEAR(DAY, remaining_of(engine, timer), 1e-9); /* Monday 07:00, not Sunday again */
    tocsin_engine_free(engine);
}

static void daylight_saving_days_in_berlin(void) {
    static event_log log;
    /* Saturday 2027-03-27 12:00 UTC; 02:30 local does not exist on Sunday. */
    tocsin_engine *engine = engine_at(1806148800.0);
    tocsin_timer timer = watched_calendar(engine, "*-*-* 02:30 Europe/Berlin", &log);
    tocsin_timer_start(engine, timer);
    tocsin_engine_advance(engine, 13 * HOUR - 1);
    CHECK_EQ(1, atomic_load(&log.count));
    tocsin_engine_advance(engine, 1); /* 01:00 UTC: the change */
    CHECK_EQ(2, atomic_load(&log.count));
    CHECK_NEAR(23.5 * HOUR, log.events[1].remaining, 1e-9); /* Monday 02:30 CEST, 00:30 UTC */
    tocsin_engine_free(engine);

    /* Saturday 2027-10-30 12:00 UTC; 02:30 happens twice on Sunday. */
    engine = engine_at(1824897600.0);
    timer = watched_calendar(engine, "*-*-* 02:30 Europe/Berlin", &log);
    tocsin_timer_start(engine, timer);
    tocsin_engine_advance(engine, 12.5 * HOUR); /* 00:30 UTC: the first 02:30 */
    CHECK_EQ(2, atomic_load(&log.count));
    CHECK_NEAR(25 * HOUR, log.events[1].remaining, 1e-9); /* Monday 02:30 CET, 01:30 UTC */
    tocsin_engine_advance(engine, 2 * HOUR); /* past the second 02:30 */
    CHECK_EQ(2, atomic_load(&log.count));
    tocsin_engine_free(engine);
}

static void saved_and_loaded_it_holds_the_rings_away(void) {
    static event_log log;
    char path[] = "/tmp/tocsin-calendar-XXXXXX";
    make_temporary(path);
    tocsin_engine *engine = engine_at(FRI_0600);
    tocsin_timer timer = watched_calendar(engine, "*-*-* 07:00 UTC", &log);
    tocsin_timer_set_label(engine, timer, "Stand-up");
    tocsin_timer_start(engine, timer);
    CHECK_EQ(TOCSIN_OK, tocsin_engine_save(engine, path));
    tocsin_engine_free(engine);

    /* Loaded on Monday at 08:00: Friday's to Monday's 07:00 passed meanwhile. */
    engine = engine_at(FRI_0600 + 3 * DAY + 2 * HOUR);
    size_t restored = 0;
    CHECK_EQ(TOCSIN_OK, tocsin_engine_load(engine, path, &restored));
    CHECK_EQ(1, restored);
    tocsin_timer loaded = 0;
    tocsin_engine_timers(engine, &loaded, 1);
    CHECK_EQ(TOCSIN_RUNNING, tocsin_timer_state(engine, loaded));
    char spec[64];
    tocsin_timer_calendar(engine, loaded, spec, sizeof spec);
    CHECK(strcmp(spec, "*-*-* 07:00:00 UTC") == 0);
    CHECK_EQ(FRI_0600 + 4 * DAY + HOUR, alarm_time(engine, loaded)); /* Tuesday's */
    tocsin_engine_advance(engine, 0);
    atomic_store(&log.count, 0);
    tocsin_timer_set_callback(engine, loaded, record_event, &log); /* the held FINISH comes now */
    tocsin_engine_advance(engine, 0);
    CHECK_EQ(1, atomic_load(&log.count));
    CHECK_EQ(TOCSIN_EVENT_FINISH, log.events[0].kind);
    CHECK_EQ(TOCSIN_RUNNING, log.events[0].state);
    CHECK_EQ(3, log.events[0].missed);
    CHECK_NEAR(DAY - HOUR, log.events[0].remaining, 1e-6);
    tocsin_engine_advance(engine, DAY - HOUR);
    CHECK_EQ(2, atomic_load(&log.count));
    CHECK_EQ(0, log.events[1].missed);
    tocsin_engine_free(engine);
    unlink(path);
}

/* Past the first 1,024 slots the table grows: each new alarm's handle must
   be read from the grown table (0.5 read it from the old one: the 1,025th
   alarm's start failed with TOCSIN_ENOENT). */
static void thousands_of_alarms_and_calendar_alarms_start(void) {
    tocsin_engine *engine = engine_at(FRI_0600);
    int failures = 0;
    for (int i = 0; i < 3000; i++) {
        tocsin_timer timer = 0;
        int rc = i % 2 ? tocsin_alarm_new(engine, FRI_0600 + 60 + i, &timer)
                       : tocsin_calendar_new(engine, "*:0/15 UTC", &timer);
        if (rc != TOCSIN_OK || tocsin_timer_start(engine, timer) != TOCSIN_OK) failures++;
    }
    CHECK_EQ(0, failures);
    CHECK_EQ(3000, tocsin_engine_timers(engine, NULL, 0));
    tocsin_engine_free(engine);
}

static double skipped_until(tocsin_engine *engine, tocsin_timer timer) {
    double until = -1;
    int rc = tocsin_calendar_skipped_until(engine, timer, &until);
    CHECK(rc == 0 || rc == 1);
    return rc == 1 ? until : 0;
}

static void skipped_rings_are_silent_and_a_skip_until_a_date_is_kept(void) {
    static event_log log;
    char path[] = "/tmp/tocsin-skip-XXXXXX";
    make_temporary(path);
    tocsin_engine *engine = engine_at(FRI_0600);
    tocsin_timer timer = watched_calendar(engine, "Mon..Fri 07:00 UTC", &log);
    CHECK_EQ(0, skipped_until(engine, timer));
    tocsin_timer_start(engine, timer);
    tocsin_engine_advance(engine, 0);
    CHECK_EQ(1, atomic_load(&log.count)); /* STATE(RUNNING) */
    /* Friday's ring skipped: Monday's comes, and the alarm says so. */
    CHECK_EQ(TOCSIN_OK, tocsin_calendar_skip(engine, timer, 1));
    CHECK_EQ(FRI_0600 + HOUR + 3 * DAY, alarm_time(engine, timer));
    CHECK_EQ(FRI_0600 + HOUR + 3 * DAY, skipped_until(engine, timer));
    tocsin_engine_advance(engine, 0);
    CHECK_EQ(2, atomic_load(&log.count));
    CHECK_EQ(TOCSIN_EVENT_STATE, log.events[1].kind);
    CHECK_EQ(TOCSIN_RUNNING, log.events[1].state);
    CHECK_NEAR(3 * DAY + HOUR, log.events[1].remaining, 1e-9);
    /* Two more, counted from the coming one: Monday's and Tuesday's. */
    CHECK_EQ(TOCSIN_OK, tocsin_calendar_skip(engine, timer, 2));
    CHECK_EQ(FRI_0600 + HOUR + 5 * DAY, alarm_time(engine, timer));
    tocsin_engine_advance(engine, 5 * DAY + HOUR - 1);
    CHECK_EQ(3, atomic_load(&log.count)); /* the skip's STATE; no ring */
    tocsin_engine_advance(engine, 1);
    CHECK_EQ(4, atomic_load(&log.count));
    CHECK_EQ(TOCSIN_EVENT_FINISH, log.events[3].kind); /* Wednesday's */
    CHECK_EQ(0, log.events[3].missed); /* skipped rings were not missed */
    CHECK_NEAR(DAY, log.events[3].remaining, 1e-9);
    CHECK_EQ(0, skipped_until(engine, timer)); /* passed: no skip any more */
    /* A holiday: every ring before the Tuesday after next, 00:00. */
    double back = FRI_0600 - 6 * HOUR + 11 * DAY;
    CHECK_EQ(TOCSIN_OK, tocsin_calendar_skip_until(engine, timer, back));
    CHECK_EQ(back + 7 * HOUR, alarm_time(engine, timer));
    CHECK_EQ(back, skipped_until(engine, timer));
    /* Undone: Thursday's comes again; and set again, then saved. */
    CHECK_EQ(TOCSIN_OK, tocsin_calendar_skip(engine, timer, 0));
    CHECK_EQ(0, skipped_until(engine, timer));
    CHECK_EQ(FRI_0600 + HOUR + 6 * DAY, alarm_time(engine, timer));
    CHECK_EQ(TOCSIN_OK, tocsin_calendar_skip_until(engine, timer, back));
    CHECK_EQ(TOCSIN_OK, tocsin_engine_save(engine, path));
    tocsin_engine_free(engine);

    /* Loaded on Friday: Thursday's and Friday's passed while away, skipped:
       nothing is held, the skip and the coming ring are as they were. */
    engine = engine_at(FRI_0600 + 7 * DAY + 2 * HOUR);
    size_t restored = 0;
    CHECK_EQ(TOCSIN_OK, tocsin_engine_load(engine, path, &restored));
    tocsin_timer loaded = 0;
    tocsin_engine_timers(engine, &loaded, 1);
    CHECK_EQ(TOCSIN_RUNNING, tocsin_timer_state(engine, loaded));
    CHECK_EQ(back, skipped_until(engine, loaded));
    CHECK_EQ(back + 7 * HOUR, alarm_time(engine, loaded));
    tocsin_engine_advance(engine, 0);
    atomic_store(&log.count, 0);
    tocsin_timer_set_callback(engine, loaded, record_event, &log);
    /* The wall clock set forward to Monday noon: still nothing rings. */
    tocsin_engine_set_wall_clock(engine, back - 12 * HOUR);
    tocsin_engine_advance(engine, 19 * HOUR - 1);
    CHECK_EQ(0, atomic_load(&log.count));
    tocsin_engine_advance(engine, 1);
    CHECK_EQ(1, atomic_load(&log.count));
    CHECK_EQ(TOCSIN_EVENT_FINISH, log.events[0].kind);
    CHECK_EQ(0, log.events[0].missed);
    tocsin_engine_free(engine);
    unlink(path);
}

static void a_skip_across_a_daylight_saving_change(void) {
    static event_log log;
    /* Saturday 2027-03-27 12:00 UTC: Sunday's 02:30 Berlin (none: at the
       change, 01:00 UTC) skipped, Monday's 02:30 CEST (00:30 UTC) comes. */
    tocsin_engine *engine = engine_at(1806148800.0);
    tocsin_timer timer = watched_calendar(engine, "*-*-* 02:30 Europe/Berlin", &log);
    CHECK_EQ(TOCSIN_OK, tocsin_calendar_skip(engine, timer, 1)); /* idle: from its coming ring */
    CHECK_EQ(1806148800.0 + 36.5 * HOUR, alarm_time(engine, timer));
    tocsin_timer_start(engine, timer);
    tocsin_engine_advance(engine, 36.5 * HOUR - 1);
    CHECK_EQ(2, atomic_load(&log.count)); /* the skip's STATE, then RUNNING */
    tocsin_engine_advance(engine, 1);
    CHECK_EQ(3, atomic_load(&log.count));
    CHECK_EQ(TOCSIN_EVENT_FINISH, log.events[2].kind);
    CHECK_EQ(0, log.events[2].missed);
    CHECK_NEAR(DAY, log.events[2].remaining, 1e-9);
    tocsin_engine_free(engine);
}

static void skips_refused_with_their_reasons(void) {
    tocsin_engine *engine = engine_at(FRI_0600);
    tocsin_timer countdown = 0, last = 0, daily = 0;
    tocsin_countdown_new(engine, 60, &countdown);
    CHECK_EQ(TOCSIN_EINVAL, tocsin_calendar_skip(engine, countdown, 1));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_calendar_skip_until(engine, countdown, FRI_0600 + DAY));
    CHECK_EQ(0, tocsin_calendar_skipped_until(engine, countdown, NULL));
    CHECK_EQ(TOCSIN_OK, tocsin_calendar_new(engine, "2027-04-01 07:00 UTC", &last));
    CHECK_EQ(TOCSIN_ERANGE, tocsin_calendar_skip(engine, last, 1)); /* no ring after it */
    CHECK_EQ(FRI_0600 + HOUR + 6 * DAY, alarm_time(engine, last)); /* unchanged */
    CHECK_EQ(TOCSIN_ERANGE, tocsin_calendar_skip_until(engine, last, FRI_0600 + 7 * DAY));
    CHECK_EQ(TOCSIN_OK, tocsin_calendar_new(engine, "*-*-* 07:00 UTC", &daily));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_calendar_skip_until(engine, daily, FRI_0600)); /* not after now */
    CHECK_EQ(TOCSIN_EINVAL, tocsin_calendar_skip_until(engine, daily, 0.0 / 0.0));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_calendar_skip(engine, daily, 100001));
    CHECK_EQ(TOCSIN_ENOENT, tocsin_calendar_skip(engine, daily + 1000, 1));
    CHECK_EQ(0, tocsin_calendar_skipped_until(engine, daily, NULL));
    /* The most a call skips, 100,000 daily rings, is 274 years: past the
       engine's range, so no ring would be left. */
    CHECK_EQ(TOCSIN_ERANGE, tocsin_calendar_skip(engine, daily, 100000));
    CHECK_EQ(FRI_0600 + HOUR, alarm_time(engine, daily));
    CHECK_EQ(TOCSIN_OK, tocsin_calendar_skip(engine, daily, 30));
    CHECK_EQ(FRI_0600 + HOUR + 30 * DAY, alarm_time(engine, daily));
    tocsin_engine_free(engine);
}

const test_case calendar_tests[] = {
    {"thousands_of_alarms_and_calendar_alarms_start", thousands_of_alarms_and_calendar_alarms_start},
    {"next_occurrences_in_zones", next_occurrences_in_zones},
    {"bad_specs_get_clear_errors", bad_specs_get_clear_errors},
    {"rings_every_weekday_and_runs_on", rings_every_weekday_and_runs_on},
    {"suspended_it_is_silent_and_resumed_rings_once_with_the_missed",
     suspended_it_is_silent_and_resumed_rings_once_with_the_missed},
    {"wall_clock_jumps_ring_once_and_never_twice", wall_clock_jumps_ring_once_and_never_twice},
    {"daylight_saving_days_in_berlin", daylight_saving_days_in_berlin},
    {"saved_and_loaded_it_holds_the_rings_away", saved_and_loaded_it_holds_the_rings_away},
    {"skipped_rings_are_silent_and_a_skip_until_a_date_is_kept", skipped_rings_are_silent_and_a_skip_until_a_date_is_kept},
    {"a_skip_across_a_daylight_saving_change", a_skip_across_a_daylight_saving_change},
    {"skips_refused_with_their_reasons", skips_refused_with_their_reasons},
    {NULL, NULL},
};
