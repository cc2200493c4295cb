/* Timers that wake a suspended machine: the timerfds behind them on the
   kernel's ALARM clocks, read back from /proc/self/fdinfo (no suspend can
   run here), and, run again without CAP_WAKE_ALARM (make test-c runs the
   "wake_denied" suite under setpriv), the reason given and the timer still
   ringing on time. */
#include <dirent.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"

/* The armed time left (seconds) of this process's timerfd on `clock`
   (9 BOOTTIME_ALARM, 8 REALTIME_ALARM); -1 if there is none (the engine
   keeps one open only while it is armed). */
static double alarm_clock_left(int clock) {
    DIR *fds = opendir("/proc/self/fd");
    double found = -1;
    struct dirent *entry;
    while (fds && (entry = readdir(fds)) != NULL && found < 0) {
        char path[300], line[200];
        snprintf(path, sizeof path, "/proc/self/fdinfo/%s", entry->d_name);
        FILE *info = fopen(path, "r");
        if (!info) continue;
        int clockid = -1;
        long seconds = -1, nanoseconds = 0;
        while (fgets(line, sizeof line, info)) {
            sscanf(line, "clockid: %d", &clockid);
            sscanf(line, "it_value: (%ld, %ld)", &seconds, &nanoseconds);
        }
        fclose(info);
        if (clockid == clock && seconds >= 0) found = seconds + nanoseconds / 1e9;
    }
    if (fds) closedir(fds);
    return found;
}

static tocsin_timer started_wake_countdown(tocsin_engine *engine, double seconds) {
    tocsin_timer timer = 0;
    CHECK_EQ(TOCSIN_OK, tocsin_countdown_new(engine, seconds, &timer));
    CHECK_EQ(TOCSIN_OK, tocsin_timer_set_wake(engine, timer, 1));
    CHECK_EQ(TOCSIN_OK, tocsin_timer_start(engine, timer));
    return timer;
}

static void wake_timers_arm_the_alarm_clocks_the_lead_ahead(void) {
    tocsin_engine *engine = NULL;
    CHECK_EQ(TOCSIN_OK, tocsin_engine_new(TOCSIN_ENGINE_POLLED, &engine));
    CHECK_EQ(1, tocsin_engine_can_wake(engine));
    char reason[256] = "x";
    CHECK_EQ(0, tocsin_engine_wake_reason(engine, reason, sizeof reason));
    CHECK(reason[0] == 0);
    tocsin_timer tea = started_wake_countdown(engine, 300);
    CHECK_EQ(1, tocsin_timer_wake(engine, tea));
    CHECK_NEAR(300 - TOCSIN_WAKE_LEAD_SECONDS, alarm_clock_left(9), 2);
    double wall = 0;
    tocsin_engine_wall_clock(engine, &wall);
    tocsin_timer bus = 0;
    CHECK_EQ(TOCSIN_OK, tocsin_alarm_new(engine, wall + 600, &bus));
    CHECK_EQ(TOCSIN_OK, tocsin_timer_set_wake(engine, bus, 1));
    CHECK_EQ(-1, alarm_clock_left(8)); /* idle: not armed (its fd is open only while armed) */
    CHECK_EQ(TOCSIN_OK, tocsin_timer_start(engine, bus));
    CHECK_NEAR(600 - TOCSIN_WAKE_LEAD_SECONDS, alarm_clock_left(8), 2);
    /* Closer than the lead: the machine wakes at the deadline itself. */
    tocsin_timer egg = started_wake_countdown(engine, 30);
    CHECK_NEAR(30, alarm_clock_left(9), 2);
    /* The earliest running one: Tea once Egg is cancelled, none once Tea is suspended. */
    CHECK_EQ(TOCSIN_OK, tocsin_timer_cancel(engine, egg));
    CHECK_NEAR(300 - TOCSIN_WAKE_LEAD_SECONDS, alarm_clock_left(9), 2);
    CHECK_EQ(TOCSIN_OK, tocsin_timer_suspend(engine, tea));
    CHECK_EQ(-1, alarm_clock_left(9));
    CHECK_EQ(TOCSIN_OK, tocsin_timer_resume(engine, tea));
    CHECK_NEAR(300 - TOCSIN_WAKE_LEAD_SECONDS, alarm_clock_left(9), 2);
    CHECK_EQ(TOCSIN_OK, tocsin_timer_adjust(engine, tea, 600));
    CHECK_NEAR(900 - TOCSIN_WAKE_LEAD_SECONDS, alarm_clock_left(9), 2);
    CHECK_EQ(TOCSIN_OK, tocsin_timer_set_wake(engine, tea, 0));
    CHECK_EQ(0, tocsin_timer_wake(engine, tea));
    CHECK_EQ(-1, alarm_clock_left(9));

    /* Saved and loaded, a wake timer still wakes. */
    CHECK_EQ(TOCSIN_OK, tocsin_timer_set_wake(engine, tea, 1));
    char path[] = "/tmp/tocsin-wake-XXXXXX";
    close(mkstemp(path));
    CHECK_EQ(TOCSIN_OK, tocsin_engine_save(engine, path));
    tocsin_engine_free(engine);
    CHECK_EQ(-1, alarm_clock_left(9)); /* closed with the engine */
    CHECK_EQ(TOCSIN_OK, tocsin_engine_new(TOCSIN_ENGINE_POLLED, &engine));
    CHECK_EQ(TOCSIN_OK, tocsin_engine_load(engine, path, NULL));
    tocsin_timer loaded[3] = {0, 0, 0};
    CHECK_EQ(3, tocsin_engine_timers(engine, loaded, 3)); /* Tea, Bus, and the cancelled Egg */
    CHECK_EQ(1, tocsin_timer_wake(engine, loaded[0]));
    CHECK_NEAR(900 - TOCSIN_WAKE_LEAD_SECONDS, alarm_clock_left(9), 3);
    CHECK_NEAR(600 - TOCSIN_WAKE_LEAD_SECONDS, alarm_clock_left(8), 3);
    tocsin_engine_free(engine);
    unlink(path);
}

static void note_finish(tocsin_engine *engine, const tocsin_event *event, void *user) {
    (void)engine;
    if (event->kind == TOCSIN_EVENT_FINISH) atomic_store((atomic_int *)user, 1);
}

/* The timerfd follows the earliest wake timer however the others change:
   one that is not the earliest moves later or sooner, the earliest is
   freed, and the earliest finishes in a delivery round (the engine keeps
   the earliest without a scan per call: issue 46). */
static void the_earliest_wake_timer_is_followed_through_every_change(void) {
    tocsin_engine *engine = NULL;
    CHECK_EQ(TOCSIN_OK, tocsin_engine_new(TOCSIN_ENGINE_POLLED, &engine));
    tocsin_timer first = started_wake_countdown(engine, 1000);
    tocsin_timer second = started_wake_countdown(engine, 2000);
    tocsin_timer third = started_wake_countdown(engine, 3000);
    CHECK_NEAR(1000 - TOCSIN_WAKE_LEAD_SECONDS, alarm_clock_left(9), 2);
    CHECK_EQ(TOCSIN_OK, tocsin_timer_adjust(engine, second, 100)); /* not the earliest, later */
    CHECK_NEAR(1000 - TOCSIN_WAKE_LEAD_SECONDS, alarm_clock_left(9), 2);
    CHECK_EQ(TOCSIN_OK, tocsin_timer_adjust(engine, third, -2500)); /* not the earliest, now it is */
    CHECK_NEAR(500 - TOCSIN_WAKE_LEAD_SECONDS, alarm_clock_left(9), 2);
    CHECK_EQ(TOCSIN_OK, tocsin_timer_free(engine, third)); /* the earliest freed */
    CHECK_NEAR(1000 - TOCSIN_WAKE_LEAD_SECONDS, alarm_clock_left(9), 2);
    CHECK_EQ(TOCSIN_OK, tocsin_timer_suspend(engine, second)); /* not the earliest, stopped */
    CHECK_NEAR(1000 - TOCSIN_WAKE_LEAD_SECONDS, alarm_clock_left(9), 2);
    tocsin_timer soon = started_wake_countdown(engine, 0.2); /* inside the lead: wakes at its deadline */
    CHECK(alarm_clock_left(9) < 1);
    atomic_int finished = 0;
    CHECK_EQ(TOCSIN_OK, tocsin_timer_set_callback(engine, soon, note_finish, &finished));
    struct pollfd entry = {.fd = tocsin_engine_fd(engine), .events = POLLIN};
    for (int round = 0; round < 50 && !atomic_load(&finished); round++) {
        poll(&entry, 1, 100);
        tocsin_engine_dispatch(engine);
    }
    /* Finished in a delivery round, and no call on it since (a call on the
       earliest rescans): the round's end has armed for the next one. */
    CHECK(atomic_load(&finished));
    CHECK_NEAR(1000 - TOCSIN_WAKE_LEAD_SECONDS, alarm_clock_left(9), 2);
    CHECK_EQ(TOCSIN_OK, tocsin_timer_cancel(engine, first));
    CHECK_EQ(-1, alarm_clock_left(9)); /* none running */
    tocsin_engine_free(engine);
}

/* The kernel's wall timer (CLOCK_REALTIME, clock id 0: it reports a clock
   set while alarms run) is armed for the earliest running alarm: sooner at
   once, and after the earliest stops, by the end of the next delivery round
   (rounds no longer scan every alarm: issue 46). */
static void the_wall_timer_follows_the_earliest_alarm(void) {
    tocsin_engine *engine = NULL;
    CHECK_EQ(TOCSIN_OK, tocsin_engine_new(TOCSIN_ENGINE_POLLED, &engine));
    double wall = 0;
    tocsin_engine_wall_clock(engine, &wall);
    tocsin_timer later = 0, sooner = 0;
    CHECK_EQ(TOCSIN_OK, tocsin_alarm_new(engine, wall + 2000, &later));
    CHECK_EQ(TOCSIN_OK, tocsin_alarm_new(engine, wall + 1000, &sooner));
    CHECK_EQ(TOCSIN_OK, tocsin_timer_start(engine, later));
    CHECK_NEAR(2000, alarm_clock_left(0), 2);
    CHECK_EQ(TOCSIN_OK, tocsin_timer_start(engine, sooner));
    CHECK_NEAR(1000, alarm_clock_left(0), 2); /* sooner: at once */
    struct pollfd entry = {.fd = tocsin_engine_fd(engine), .events = POLLIN};
    CHECK_EQ(TOCSIN_OK, tocsin_timer_cancel(engine, sooner)); /* the earliest stops */
    poll(&entry, 1, 1000);
    tocsin_engine_dispatch(engine);
    CHECK_NEAR(2000, alarm_clock_left(0), 2);
    CHECK_EQ(TOCSIN_OK, tocsin_timer_suspend(engine, later)); /* none running */
    poll(&entry, 1, 1000);
    tocsin_engine_dispatch(engine);
    CHECK(alarm_clock_left(0) <= 0);
    tocsin_engine_free(engine);
}

static void bad_wake_requests_are_refused(void) {
    tocsin_engine *engine = NULL;
    tocsin_timer watch = 0, awake = 0, tea = 0;
    CHECK_EQ(TOCSIN_OK, tocsin_engine_new(TOCSIN_ENGINE_MANUAL_CLOCK, &engine));
    CHECK_EQ(0, tocsin_engine_can_wake(engine));
    char reason[256];
    CHECK(tocsin_engine_wake_reason(engine, reason, sizeof reason) > 0 && strstr(reason, "manual clock"));
    tocsin_stopwatch_new(engine, &watch);
    tocsin_countdown_new(engine, 60, &awake);
    tocsin_timer_set_clock(engine, awake, TOCSIN_CLOCK_AWAKE);
    tocsin_countdown_new(engine, 60, &tea);
    CHECK_EQ(TOCSIN_EINVAL, tocsin_timer_set_wake(engine, watch, 1));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_timer_set_wake(engine, awake, 1));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_timer_set_wake(engine, tea, 2));
    CHECK_EQ(TOCSIN_OK, tocsin_timer_set_wake(engine, tea, 1)); /* kept; it cannot wake anything here */
    CHECK_EQ(1, tocsin_timer_wake(engine, tea));
    CHECK_EQ(TOCSIN_ENOENT, tocsin_timer_set_wake(engine, tea + 1, 1));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_engine_wake_reason(engine, NULL, 4));
    tocsin_engine_free(engine);
}

static atomic_int rang;
static double rang_late;

static void note_ring(tocsin_engine *engine, const tocsin_event *event, void *user) {
    (void)engine, (void)user;
    if (event->kind == TOCSIN_EVENT_FINISH) {
        rang_late = event->lateness;
        atomic_store(&rang, 1);
    }
}

/* Run without CAP_WAKE_ALARM: the reason, and the timer rings on time. */
static void without_the_capability_it_says_why_and_rings_on_time(void) {
    tocsin_engine *engine = NULL;
    CHECK_EQ(TOCSIN_OK, tocsin_engine_new(TOCSIN_ENGINE_DEFAULT, &engine));
    CHECK_EQ(0, tocsin_engine_can_wake(engine));
    char reason[256];
    tocsin_engine_wake_reason(engine, reason, sizeof reason);
    CHECK(strncmp(reason, "no CAP_WAKE_ALARM", 17) == 0);
    tocsin_timer tea = 0;
    CHECK_EQ(TOCSIN_OK, tocsin_countdown_new(engine, 0.3, &tea));
    CHECK_EQ(TOCSIN_OK, tocsin_timer_set_wake(engine, tea, 1));
    CHECK_EQ(TOCSIN_OK, tocsin_timer_set_callback(engine, tea, note_ring, NULL));
    double began = boot_seconds();
    CHECK_EQ(TOCSIN_OK, tocsin_timer_start(engine, tea));
    CHECK(wait_for(&rang, 1, 5000));
    CHECK(boot_seconds() - began >= 0.3);
    CHECK(rang_late >= 0 && rang_late < 0.2);
    CHECK_EQ(-1, alarm_clock_left(9)); /* no wake timerfd at all */
    tocsin_engine_free(engine);
}

const test_case wake_tests[] = {
    {"wake_timers_arm_the_alarm_clocks_the_lead_ahead", wake_timers_arm_the_alarm_clocks_the_lead_ahead},
    {"the_earliest_wake_timer_is_followed_through_every_change", the_earliest_wake_timer_is_followed_through_every_change},
    {"the_wall_timer_follows_the_earliest_alarm", the_wall_timer_follows_the_earliest_alarm},
    {"bad_wake_requests_are_refused", bad_wake_requests_are_refused},
    {NULL, NULL},
};

const test_case wake_denied_tests[] = {
    {"without_the_capability_it_says_why_and_rings_on_time", without_the_capability_it_says_why_and_rings_on_time},
    {NULL, NULL},
};
