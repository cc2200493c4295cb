/* The engine's calls, each made COUNT times, for callgrind to count their
 * instructions (bench/instructions.sh): every exported function named
 * below is called in one phase only, so its inclusive count over the run,
 * divided by its calls, is its cost per call. Deterministic: a POLLED
 * engine (no engine thread) for the calls, a MANUAL_CLOCK one for delivery.
 *   instructions calls COUNT      the calls, on COUNT timers
 *   instructions delivery COUNT   COUNT FINISHes delivered by one advance
 * prints "name calls" for each measured function, for the script to divide. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include "tocsin.h"

static void on_event(tocsin_engine *engine, const tocsin_event *event, void *context) {
    (void)engine;
    (void)event;
    ++*(long *)context;
}

static void check(int status, const char *what) {
    if (status < 0) {
        fprintf(stderr, "instructions: %s: %s\n", what, tocsin_strerror(status));
        exit(1);
    }
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: instructions calls|delivery COUNT\n");
        return 2;
    }
    int delivery = argv[1][0] == 'd';
    long count = atol(argv[2]);
    tocsin_timer *timers = malloc(sizeof *timers * (size_t)count);
    long events = 0;
    tocsin_engine *engine;
    if (delivery) goto deliver;
    check(tocsin_engine_new(TOCSIN_ENGINE_POLLED, &engine), "engine");
    /* Far deadlines: nothing falls due while the calls are counted. */
    for (long i = 0; i < count; i++) check(tocsin_countdown_new(engine, 3600.0 + (double)i * 1e-3, &timers[i]), "new");
    for (long i = 0; i < count; i++) check(tocsin_timer_set_callback(engine, timers[i], on_event, &events), "callback");
    for (long i = 0; i < count; i++) check(tocsin_timer_start(engine, timers[i]), "start");
    for (long i = 0; i < count; i++) check(tocsin_timer_suspend(engine, timers[i]), "suspend");
    for (long i = 0; i < count; i++) check(tocsin_timer_resume(engine, timers[i]), "resume");
    for (long i = 0; i < count; i++) check(tocsin_timer_adjust(engine, timers[i], 1.0), "adjust");
    for (long i = 0; i < count; i++) check(tocsin_timer_cancel(engine, timers[i]), "cancel");
    for (long i = 0; i < count; i++) check(tocsin_timer_free(engine, timers[i]), "free");
    for (long i = 0; i < count; i++) {
        check(tocsin_countdown_start(engine, 3600.0 + (double)i * 1e-3, TOCSIN_EVENTS_FINISH, on_event, &events, &timers[i]),
              "countdown_start");
    }
    tocsin_engine_free(engine);
    goto calendar;

deliver:
    /* Delivery: COUNT one-shot FINISHes, 1 ms apart, delivered by one advance. */
    check(tocsin_engine_new(TOCSIN_ENGINE_MANUAL_CLOCK, &engine), "manual engine");
    for (long i = 0; i < count; i++) {
        check(tocsin_countdown_start(engine, 0.001 * (double)(i + 1), TOCSIN_EVENTS_FINISH, on_event, &events, &timers[i]),
              "countdown_start");
    }
    events = 0;
    check(tocsin_engine_advance(engine, 0.001 * (double)(count + 1)), "advance");
    if (events != count) {
        fprintf(stderr, "instructions: %ld events delivered, not %ld\n", events, count);
        return 1;
    }
    tocsin_engine_free(engine);
    printf("tocsin_engine_advance %ld\n", count);
    free(timers);
    return 0;

calendar:;
    /* The calendar's next occurrence (not in every version: looked up). */
    int (*next)(const char *, double, double *) =
        (int (*)(const char *, double, double *))dlsym(RTLD_DEFAULT, "tocsin_calendar_next");
    long nexts = count / 100;
    if (next) {
        double at = 1798761600.0;  /* 2027-01-01 00:00 UTC */
        for (long i = 0; i < nexts; i++) check(next("Mon..Fri *-*-* 07:00:00 UTC", at, &at), "calendar_next");
    }

    printf("tocsin_countdown_new %ld\ntocsin_timer_set_callback %ld\ntocsin_timer_start %ld\n", count, count, count);
    printf("tocsin_timer_suspend %ld\ntocsin_timer_resume %ld\ntocsin_timer_adjust %ld\n", count, count, count);
    printf("tocsin_timer_cancel %ld\ntocsin_timer_free %ld\n", count, count);
    printf("tocsin_countdown_start %ld\n", count);
    if (next) printf("tocsin_calendar_next %ld\n", nexts);
    free(timers);
    return 0;
}
