/* oneshot: the same timer workloads on Tocsin (through its C ABI, DEFAULT
 * mode), libuv, GLib and a minimal C floor (binary min-heap + one timerfd,
 * single-threaded, no locks), so one run compares them.
 *
 *   oneshot ENGINE N SEED        ENGINE: tocsin | tocsin-1 | uv | glib | floor
 *
 * tocsin arms with the three calls of the general API (countdown_new,
 * set_callback, start; every event kind delivered); tocsin-1 with the
 * one-shot call, tocsin_countdown_start, asking for FINISH only, which is
 * what libuv and GLib deliver.
 *
 * Workload 1 (one-shot): arm N timers with deadlines spread uniformly over
 * [0.5 s, 2.5 s] (seeded), let them all fire. Workload 2 (cancel): arm N
 * timers 60 s away, cancel them all. Prints one line of key=value:
 *   schedule_ns  per create+arm        cancel_ns   per cancel
 *   late_p50_us, late_p99_us, late_max_us          firing lateness
 *   early        firings before their deadline (must be 0)
 *   bytes        RSS growth per armed timer       cpu_s  CPU seconds
 *   late_p99_first_us, late_p99_rest_us  the p99 of the timers due in the
 *                first 0.25 s of the spread, and of the others
 * Lateness is measured the same way for every engine: CLOCK_MONOTONIC in
 * the callback minus the deadline asked for.
 */
#define _GNU_SOURCE
#include <glib.h>
#include <math.h>
#include <semaphore.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/timerfd.h>
#include <time.h>
#include <tocsin.h>
#include <unistd.h>
#include <uv.h>

#include "common.h"

/* Resident KB from smaps_rollup, which walks the page tables: VmRSS in
   /proc/self/status is kept in per-CPU counters and can be off by hundreds
   of KB (most of the measure at 1,000 timers). */
static long rss_kb(void) {
    FILE *f = fopen("/proc/self/smaps_rollup", "r");
    char line[256];
    long kb = 0;
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "Rss:", 4)) kb = atol(line + 4);
    if (f) fclose(f);
    return kb;
}

static double cpu_seconds(void) {
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_utime.tv_sec + usage.ru_stime.tv_sec + (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

/* Shared state: each timer's deadline and its measured lateness. */
static int n;
static int64_t *deadline;  /* absolute CLOCK_MONOTONIC ns */
static int64_t *lateness;  /* ns; INT64_MIN until fired */
static int fired, early;

static void record(int i) {
    int64_t late = now_ns() - deadline[i];
    if (late < 0) early++;
    lateness[i] = late;
    fired++;
}

static uint64_t rng;
static double uniform(void) {
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (double)(rng >> 11) / (double)(1ULL << 53);
}

/* ---- Tocsin ---- */
/* Posted by the last firing: the host thread sleeps until then instead of
   polling (a 1 kHz poll would wake it, and disturb the engine thread's core,
   a thousand times a second). */
static sem_t tocsin_done;
static void tocsin_cb(tocsin_engine *e, const tocsin_event *ev, void *data) {
    (void)e;
    if (ev->kind == TOCSIN_EVENT_FINISH) {
        record((int)(intptr_t)data);
        if (fired == n) sem_post(&tocsin_done);
    }
}

/* ---- libuv ---- */
static void uv_cb(uv_timer_t *t) { record((int)(intptr_t)t->data); }

/* ---- GLib ---- */
static GMainLoop *glib_loop;
static gboolean glib_cb(gpointer data) {
    record((int)(intptr_t)data);
    if (fired == n) g_main_loop_quit(glib_loop);
    return G_SOURCE_REMOVE;
}

int main(int argc, char **argv) {
    if (argc != 4) { fprintf(stderr, "usage: oneshot ENGINE N SEED\n"); return 2; }
    const char *engine = argv[1];
    n = atoi(argv[2]);
    rng = (uint64_t)atoll(argv[3]) * 2654435761u + 1;
    deadline = malloc(sizeof(int64_t) * n);
    lateness = malloc(sizeof(int64_t) * n);
    double *offset = malloc(sizeof(double) * n);
    for (int i = 0; i < n; i++) offset[i] = 0.5 + 2.0 * uniform();
    /* The harness's own arrays are touched before the first RSS reading, so
       that "bytes per armed timer" is the engine's (plus, for tocsin and
       GLib, the caller's array of handles or ids; for libuv its timers). */
    for (int i = 0; i < n; i++) {  /* volatile: a memset here was optimised away */
        ((volatile int64_t *)deadline)[i] = 0;
        ((volatile int64_t *)lateness)[i] = 0;
    }
    long rss0 = rss_kb();
    double cpu0 = cpu_seconds();
    int64_t schedule_ns = 0, cancel_ns = 0;
    long armed_kb = 0;

    if (!strcmp(engine, "tocsin") || !strcmp(engine, "tocsin-1")) {
        int one_call = !strcmp(engine, "tocsin-1");
        tocsin_engine *e;
        sem_init(&tocsin_done, 0, 0);
        tocsin_engine_new(TOCSIN_ENGINE_DEFAULT, &e);
        tocsin_timer *t = malloc(sizeof(tocsin_timer) * n);
        int64_t start = now_ns();
        for (int i = 0; i < n; i++) {
            if (one_call) {
                deadline[i] = now_ns() + (int64_t)(offset[i] * 1e9);
                tocsin_countdown_start(e, offset[i], TOCSIN_EVENTS_FINISH, tocsin_cb, (void *)(intptr_t)i, &t[i]);
                continue;
            }
            tocsin_countdown_new(e, offset[i], &t[i]);
            tocsin_timer_set_callback(e, t[i], tocsin_cb, (void *)(intptr_t)i);
            deadline[i] = now_ns() + (int64_t)(offset[i] * 1e9);
            tocsin_timer_start(e, t[i]);
        }
        schedule_ns = (now_ns() - start) / n;
        armed_kb = rss_kb();
        while (sem_wait(&tocsin_done) != 0) continue;  /* EINTR */
        /* cancel: arm N far away, cancel them all */
        for (int i = 0; i < n; i++) { tocsin_timer_free(e, t[i]); tocsin_countdown_new(e, 60, &t[i]); tocsin_timer_start(e, t[i]); }
        start = now_ns();
        for (int i = 0; i < n; i++) tocsin_timer_cancel(e, t[i]);
        cancel_ns = (now_ns() - start) / n;
        tocsin_engine_free(e);
    } else if (!strcmp(engine, "uv")) {
        uv_loop_t *loop = uv_default_loop();
        uv_timer_t *t = malloc(sizeof(uv_timer_t) * n);
        int64_t start = now_ns();
        for (int i = 0; i < n; i++) {
            uv_timer_init(loop, &t[i]);
            t[i].data = (void *)(intptr_t)i;
            /* As a careful user: fresh loop time, milliseconds rounded up. */
            uv_update_time(loop);
            deadline[i] = now_ns() + (int64_t)(offset[i] * 1e9);
            uv_timer_start(&t[i], uv_cb, (uint64_t)ceil(offset[i] * 1000), 0);
        }
        schedule_ns = (now_ns() - start) / n;
        armed_kb = rss_kb();
        uv_run(loop, UV_RUN_DEFAULT);
        for (int i = 0; i < n; i++) uv_timer_start(&t[i], uv_cb, 60000, 0);
        start = now_ns();
        for (int i = 0; i < n; i++) uv_timer_stop(&t[i]);
        cancel_ns = (now_ns() - start) / n;
    } else if (!strcmp(engine, "glib")) {
        GMainContext *context = g_main_context_default();
        glib_loop = g_main_loop_new(context, FALSE);
        guint *ids = malloc(sizeof(guint) * n);
        int64_t start = now_ns();
        for (int i = 0; i < n; i++) {
            deadline[i] = now_ns() + (int64_t)(offset[i] * 1e9);
            ids[i] = g_timeout_add((guint)ceil(offset[i] * 1000), glib_cb, (void *)(intptr_t)i);
        }
        schedule_ns = (now_ns() - start) / n;
        armed_kb = rss_kb();
        g_main_loop_run(glib_loop);
        for (int i = 0; i < n; i++) ids[i] = g_timeout_add(60000, glib_cb, NULL);
        start = now_ns();
        for (int i = 0; i < n; i++) g_source_remove(ids[i]);
        cancel_ns = (now_ns() - start) / n;
    } else if (!strcmp(engine, "floor")) {
        floor_heap heap;
        if (!floor_init(&heap, n)) return 1;
        int fd = timerfd_create(CLOCK_MONOTONIC, 0);
        int64_t armed = INT64_MAX;
        int64_t start = now_ns();
        for (int i = 0; i < n; i++) {
            deadline[i] = now_ns() + (int64_t)(offset[i] * 1e9);
            floor_push(&heap, i, deadline[i]);
            if (deadline[i] < armed) {
                armed = deadline[i];
                struct itimerspec spec = {{0, 0}, {armed / 1000000000, armed % 1000000000}};
                timerfd_settime(fd, TFD_TIMER_ABSTIME, &spec, NULL);
            }
        }
        schedule_ns = (now_ns() - start) / n;
        armed_kb = rss_kb();
        while (heap.count > 0) {
            uint64_t expirations;
            if (read(fd, &expirations, sizeof expirations) < 0) break;
            int64_t t = now_ns();
            while (heap.count > 0 && heap.entries[0].at <= t) {
                int index = heap.entries[0].index;
                floor_remove(&heap, index);
                record(index);
            }
            if (heap.count > 0) {
                int64_t next = heap.entries[0].at;
                struct itimerspec spec = {{0, 0}, {next / 1000000000, next % 1000000000}};
                timerfd_settime(fd, TFD_TIMER_ABSTIME, &spec, NULL);
            }
        }
        for (int i = 0; i < n; i++) floor_push(&heap, i, now_ns() + 60000000000LL);
        start = now_ns();
        for (int i = 0; i < n; i++) floor_remove(&heap, i);
        cancel_ns = (now_ns() - start) / n;
    } else {
        fprintf(stderr, "unknown engine %s\n", engine);
        return 2;
    }
    /* Where the tail is: the p99 of the timers due in the first 0.25 s of
       the spread (the first eighth, due while a backlog of the arming may
       still be delivered) and of the rest. */
    int64_t *first = malloc(sizeof(int64_t) * n), *rest = malloc(sizeof(int64_t) * n);
    int firsts = 0, rests = 0;
    for (int i = 0; i < n; i++) {
        if (offset[i] < 0.75) first[firsts++] = lateness[i];
        else rest[rests++] = lateness[i];
    }
    qsort(first, (size_t)firsts, sizeof(int64_t), compare_int64);
    qsort(rest, (size_t)rests, sizeof(int64_t), compare_int64);
    qsort(lateness, (size_t)n, sizeof(int64_t), compare_int64);
    printf("engine=%s n=%d schedule_ns=%lld cancel_ns=%lld late_p50_us=%.1f late_p99_us=%.1f late_max_us=%.1f "
           "early=%d bytes=%.0f cpu_s=%.2f late_p99_first_us=%.1f late_p99_rest_us=%.1f\n",
           engine, n, (long long)schedule_ns, (long long)cancel_ns, lateness[n / 2] / 1e3,
           lateness[(int)(n * 0.99)] / 1e3, lateness[n - 1] / 1e3, early, (armed_kb - rss0) * 1024.0 / n,
           cpu_seconds() - cpu0, firsts ? first[(int)(firsts * 0.99)] / 1e3 : 0.0,
           rests ? rest[(int)(rests * 0.99)] / 1e3 : 0.0);
    free(first);
    free(rest);
    return 0;
}
