/* stress: the engine under concurrency, through the C ABI, with its
 * promises checked as invariants. Also the memory check: a million
 * create/start/cancel/free cycles with flat memory.
 *
 *   stress THREADS OPERATIONS_PER_THREAD CYCLES
 *
 * Phase 1: THREADS threads create, start, cancel and free timers on one
 * DEFAULT-mode engine at once; callbacks cancel other threads' timers; at the
 * end the engine is freed while callbacks run. Invariants:
 *   - FINISH at most once per run (per timer: FINISH events <= starts);
 *   - no TICK or FINISH of a run after tocsin_timer_cancel() returned;
 *   - no callback after tocsin_timer_free() returned;
 *   - no callback after tocsin_engine_free() returned.
 * Phase 2: CYCLES create/start/cancel/free cycles; RSS before and after.
 * Phase 1 also fails if anything it relies on did not happen: every
 * operation ran (no failed create skipped), callbacks and finishes came.
 * Prints counts and "N passed, N failed".
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tocsin.h"

typedef struct {
    atomic_int run;           /* bumped before each start */
    atomic_int starts;        /* successful starts */
    atomic_int finishes;      /* FINISH events delivered */
    atomic_int cancelled_run; /* the run cancel() returned for; -1 none */
    atomic_int freed;         /* free() returned */
} record;

static tocsin_engine *engine;
static atomic_int engine_freed;
static atomic_long violations, callbacks, operations, finishes, failed_calls;
static atomic_ullong shared_handles[64]; /* timers any callback may cancel */

static void violation(const char *what) {
    if (atomic_fetch_add(&violations, 1) < 10) fprintf(stderr, "violation: %s\n", what);
}

static void callback(tocsin_engine *e, const tocsin_event *event, void *data) {
    record *r = data;
    atomic_fetch_add(&callbacks, 1);
    if (atomic_load(&engine_freed)) violation("callback after tocsin_engine_free returned");
    if (atomic_load(&r->freed)) violation("callback after tocsin_timer_free returned");
    int run = atomic_load(&r->run);
    if (event->kind != TOCSIN_EVENT_STATE && atomic_load(&r->cancelled_run) == run)
        violation("TICK or FINISH after tocsin_timer_cancel returned");
    if (event->kind == TOCSIN_EVENT_FINISH) {
        atomic_fetch_add(&r->finishes, 1);
        atomic_fetch_add(&finishes, 1);
    }
    if (event->kind == TOCSIN_EVENT_TICK && event->tick % 7 == 0) {
        /* Cancel some other thread's timer from inside a callback. */
        tocsin_timer other = atomic_load(&shared_handles[event->tick % 64]);
        if (other) tocsin_timer_cancel(e, other);
    }
}

typedef struct {
    unsigned seed;
    int operations;
} worker;

static void *work(void *data) {
    worker *w = data;
    record *records = calloc((size_t)w->operations, sizeof(record));
    for (int i = 0; i < w->operations; i++) {
        record *r = &records[i];
        atomic_store(&r->cancelled_run, -1);
        tocsin_timer timer = 0;
        int roll = (int)(rand_r(&w->seed) % 10);
        int status = roll < 3 ? tocsin_stopwatch_new(engine, &timer)
                              : tocsin_countdown_new(engine, 0.0001 + (rand_r(&w->seed) % 3000) * 1e-6, &timer);
        if (status != TOCSIN_OK || tocsin_timer_set_tick(engine, timer, 0.0005) != TOCSIN_OK ||
            tocsin_timer_set_callback(engine, timer, callback, r) != TOCSIN_OK) {
            atomic_fetch_add(&failed_calls, 1);
            continue;
        }
        atomic_store(&shared_handles[rand_r(&w->seed) % 64], timer);
        atomic_store(&r->run, 1);
        if (tocsin_timer_start(engine, timer) == TOCSIN_OK)
            atomic_fetch_add(&r->starts, 1);
        else
            atomic_fetch_add(&failed_calls, 1); /* a fresh timer always starts */
        struct timespec pause = {0, (long)(rand_r(&w->seed) % 500) * 1000L};
        nanosleep(&pause, NULL);
        if (roll % 2 == 0 && tocsin_timer_cancel(engine, timer) == TOCSIN_OK) atomic_store(&r->cancelled_run, 1);
        if (roll % 3 == 0) {
            atomic_store(&r->run, 2); /* restart: a new run */
            if (tocsin_timer_start(engine, timer) == TOCSIN_OK) {
                atomic_fetch_add(&r->starts, 1);
                if (tocsin_timer_cancel(engine, timer) == TOCSIN_OK) atomic_store(&r->cancelled_run, 2);
            }
        }
        if (tocsin_timer_free(engine, timer) == TOCSIN_OK)
            atomic_store(&r->freed, 1);
        else
            atomic_fetch_add(&failed_calls, 1);
        /* After free returned, nothing more is delivered: the count is final. */
        if (atomic_load(&r->finishes) > atomic_load(&r->starts)) violation("more FINISH events than runs");
        atomic_fetch_add(&operations, 6);
    }
    /* Records stay allocated: a late callback must be caught as a
       violation, not turn into a use-after-free. */
    return records;
}

static long rss_kb(void) {
    FILE *status = fopen("/proc/self/status", "r");
    char line[256];
    long kb = 0;
    while (status && fgets(line, sizeof line, status))
        if (!strncmp(line, "VmRSS:", 6)) kb = atol(line + 6);
    if (status) fclose(status);
    return kb;
}

int main(int argc, char **argv) {
    int threads = argc > 1 ? atoi(argv[1]) : 8;
    int per_thread = argc > 2 ? atoi(argv[2]) : 2000;
    long cycles = argc > 3 ? atol(argv[3]) : 1000000;
    if (threads < 1 || threads > 64) threads = 8;
    int passed = 0, failed = 0;

    /* Phase 1: concurrency. */
    struct timespec began, ended;
    clock_gettime(CLOCK_MONOTONIC, &began);
    if (tocsin_engine_new(TOCSIN_ENGINE_DEFAULT, &engine) != TOCSIN_OK) {
        printf("stress: no engine\n0 passed, 1 failed\n");
        return 1;
    }
    pthread_t ids[64];
    worker workers[64];
    for (int t = 0; t < threads; t++) {
        workers[t] = (worker){(unsigned)(t * 7919 + 1), per_thread};
        pthread_create(&ids[t], NULL, work, &workers[t]);
    }
    void *records[64];
    for (int t = 0; t < threads; t++) pthread_join(ids[t], &records[t]);
    clock_gettime(CLOCK_MONOTONIC, &ended);
    double seconds = (double)(ended.tv_sec - began.tv_sec) + (double)(ended.tv_nsec - began.tv_nsec) / 1e9;
    /* Free the engine while ticking stopwatches deliver callbacks. */
    static record busy[32];
    for (int i = 0; i < 32; i++) {
        tocsin_timer watch;
        atomic_store(&busy[i].cancelled_run, -1);
        tocsin_stopwatch_new(engine, &watch);
        tocsin_timer_set_tick(engine, watch, 0.0001);
        tocsin_timer_set_callback(engine, watch, callback, &busy[i]);
        atomic_store(&busy[i].run, 1);
        tocsin_timer_start(engine, watch);
    }
    struct timespec pause = {0, 20 * 1000000L};
    nanosleep(&pause, NULL);
    tocsin_engine_free(engine);
    atomic_store(&engine_freed, 1);
    nanosleep(&pause, NULL);
    for (int t = 0; t < threads; t++) free(records[t]);
    long found = atomic_load(&violations);
    long expected = 6L * threads * per_thread;
    printf("stress: %d threads, %ld operations of %ld, %ld failed calls, %ld callbacks, %ld finishes, %ld violations; "
           "%.0f thousand operations/s\n",
           threads, atomic_load(&operations), expected, atomic_load(&failed_calls), atomic_load(&callbacks),
           atomic_load(&finishes), found, (double)atomic_load(&operations) / seconds / 1e3);
    /* Invariants hold vacuously when nothing ran: prove that it did. */
    int all_ran = atomic_load(&operations) == expected && atomic_load(&failed_calls) == 0 &&
                  atomic_load(&callbacks) > 0 && atomic_load(&finishes) > 0;
    if (!all_ran) fprintf(stderr, "stress: not every operation ran, or no callback or finish came\n");
    found == 0 && all_ran ? passed++ : failed++;

    /* Phase 2: memory stays flat over many create/start/cancel/free cycles
       (0 cycles: skipped, as under AddressSanitizer, whose quarantine keeps
       freed memory on purpose). */
    if (cycles == 0) {
        printf("%d passed, %d failed\n", passed, failed);
        return failed ? 1 : 0;
    }
    tocsin_engine *manual;
    if (tocsin_engine_new(TOCSIN_ENGINE_MANUAL_CLOCK, &manual) != TOCSIN_OK) {
        printf("memory: no engine\n%d passed, %d failed\n", passed, failed + 1);
        return 1;
    }
    long before = 0, done = 0;
    for (long i = 0; i < cycles; i++) {
        if (i == cycles / 10) before = rss_kb(); /* after the first tenth: warm */
        tocsin_timer timer;
        if (tocsin_countdown_new(manual, 1 + (double)(i % 100), &timer) != TOCSIN_OK) continue;
        done += tocsin_timer_start(manual, timer) == TOCSIN_OK && tocsin_timer_cancel(manual, timer) == TOCSIN_OK &&
                tocsin_timer_free(manual, timer) == TOCSIN_OK;
        if (i % 1000 == 999) tocsin_engine_advance(manual, 0); /* deliver nothing (no callback): drains */
    }
    long after = rss_kb();
    tocsin_engine_free(manual);
    printf("memory: %ld create/start/cancel/free cycles of %ld, RSS %ld kB after the first tenth, %ld kB at the end\n",
           done, cycles, before, after);
    (after - before < 4096 && done == cycles) ? passed++ : failed++;

    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
