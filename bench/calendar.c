/* Calendar alarms' costs through the C ABI (bench/calendar.sh prints the
 * table): tocsin_calendar_next per call for a few specs, and arming a
 * calendar alarm against arming a one-shot wall-clock alarm.
 *   calendar next SPEC CALLS      ns per call, each after the previous result
 *                                  (from 2027-01-15, starting over every 1,000)
 *   calendar arm KIND TIMERS      ns per timer to create, start and free
 *                                  (KIND: alarm, alarm+next, calendar)
 *   calendar scale TIMERS [nowake]  TIMERS calendar alarms with wake on, created
 *                                  and started on a DEFAULT engine one by one:
 *                                  µs per alarm for the first and the last
 *                                  tenth, and whether wake was on (it needs
 *                                  CAP_WAKE_ALARM; without it, wake is off)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tocsin.h"

static double now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void fail(const char *what, int rc) {
    fprintf(stderr, "calendar bench: %s: %s\n", what, tocsin_strerror(rc));
    exit(1);
}

int main(int argc, char **argv) {
    if (argc != 4 && !(argc == 3 && strcmp(argv[1], "scale") == 0)) {
        fprintf(stderr, "usage: calendar next SPEC CALLS | calendar arm alarm|alarm+next|calendar TIMERS | calendar scale TIMERS [nowake]\n");
        return 2;
    }
    long count = argc > 3 ? atol(argv[3]) : 0; /* scale takes its own */
    double start, after = 1800000000.0, out = 0; /* 2027-01-15 */
    if (strcmp(argv[1], "next") == 0) {
        int rc = tocsin_calendar_next(argv[2], after, &out); /* warm: the zone is read once */
        if (rc != TOCSIN_OK) fail(argv[2], rc);
        start = now_ns();
        for (long i = 0; i < count; i++) {
            if ((rc = tocsin_calendar_next(argv[2], after, &out)) != TOCSIN_OK) fail(argv[2], rc);
            after = i % 1000 == 999 ? 1800000000.0 : out; /* 1,000 on, then again: never past 2200 */
        }
        printf("next\t%s\t%.0f\n", argv[2], (now_ns() - start) / count);
        return 0;
    }
    tocsin_engine *engine = NULL;
    if (strcmp(argv[1], "scale") == 0) {
        long n = atol(argv[2]);
        tocsin_engine_new(TOCSIN_ENGINE_DEFAULT, &engine);
        int woke = argc == 3 && tocsin_engine_can_wake(engine) == 1;
        double first = 0, last = 0, began = now_ns();
        tocsin_timer timer;
        for (long i = 0; i < n; i++) {
            if (i == n / 10) first = now_ns() - began;
            if (i == n - n / 10) began = now_ns();
            int rc = tocsin_calendar_new(engine, "Mon..Fri 07:00 Europe/Berlin", &timer);
            if (rc != TOCSIN_OK) fail("calendar_new", rc);
            if (woke && (rc = tocsin_timer_set_wake(engine, timer, 1)) != TOCSIN_OK) fail("set_wake", rc);
            if ((rc = tocsin_timer_start(engine, timer)) != TOCSIN_OK) fail("start", rc);
        }
        last = now_ns() - began;
        printf("scale\t%ld\t%.1f\t%.1f\t%s\n", n, first / 1e3 / (n / 10), last / 1e3 / (n / 10), woke ? "wake" : "no-wake");
        tocsin_engine_free(engine);
        return 0;
    }
    tocsin_engine_new(TOCSIN_ENGINE_POLLED, &engine);
    tocsin_timer *timers = calloc(count, sizeof *timers);
    const char *kind = argv[2], *spec = "Mon..Fri 07:00 Europe/Berlin";
    double wall = (double)time(NULL);
    int rc = tocsin_calendar_next(spec, wall, &out);
    if (rc != TOCSIN_OK) fail(spec, rc);
    start = now_ns();
    for (long i = 0; i < count; i++) {
        if (strcmp(kind, "calendar") == 0) {
            rc = tocsin_calendar_new(engine, spec, &timers[i]);
        } else {
            double at = wall + 3600 + (double)(i % 1000);
            if (strcmp(kind, "alarm+next") == 0) {
                rc = tocsin_calendar_next(spec, wall, &at);
                if (rc != TOCSIN_OK) fail(spec, rc);
            }
            rc = tocsin_alarm_new(engine, at, &timers[i]);
        }
        if (rc != TOCSIN_OK) fail(kind, rc);
        if ((rc = tocsin_timer_start(engine, timers[i])) != TOCSIN_OK) fail("start", rc);
    }
    for (long i = 0; i < count; i++) tocsin_timer_free(engine, timers[i]);
    printf("arm\t%s\t%.0f\n", kind, (now_ns() - start) / count);
    tocsin_engine_free(engine);
    free(timers);
    return 0;
}
