/* leeway: 100 timers ticking every second at scattered phases, and how
 * often the process wakes for them. Prints one line of key=value.
 *
 *   leeway ENGINE [SECONDS]   (default 10 s measured, after 2.5 s of set-up)
 *
 * ENGINE:
 *   tocsin-0   Tocsin, DEFAULT mode (its own thread): stopwatches with a 1 s
 *              tick, no leeway
 *   tocsin-1   the same with tocsin_timer_set_leeway(1 s)
 *   glib       g_timeout_add(1000): GLib's millisecond timeouts (no leeway)
 *   glib-s     g_timeout_add_seconds(1): GLib's second-aligned timeouts
 *   uv         uv_timer_start(1000, repeat 1000): libuv (no leeway)
 * (DispatchSourceTimer with and without leeway: bench/dispatch, `leeway`.)
 *
 * Timer i is armed at t0 + phase_i (phases drawn once, seeded, over 1 s);
 * its tick k is due at its arming time + k s. Measured from t0 + 2.5 s for
 * SECONDS:
 *   wakeups_per_s  context switches per second of every thread but the
 *                  measuring one (each is a thread going to sleep or being
 *                  put off the CPU: at least one per wake-up)
 *   ticks_per_s    ticks delivered per second (100 expected)
 *   late_p50_ms, late_p99_ms, late_max_ms   each tick against its due time
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <glib.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <tocsin.h>
#include <unistd.h>
#include <uv.h>

#include "common.h"

enum { TIMERS = 100, MAX_SAMPLES = 100000 };
static const int64_t SECOND = 1000000000;

static int64_t armed_at[TIMERS];
static int64_t ticks_of[TIMERS];
static int64_t window_from, window_to;
static int64_t samples[MAX_SAMPLES];
static atomic_int sample_count;
static pid_t measurer;
static long switches_in_window;

static void sleep_until(int64_t deadline) {
    struct timespec t = {deadline / SECOND, deadline % SECOND};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, NULL) != 0) {}
}

static long switches(void) { return process_switches(measurer); }

static void *measure(void *unused) {
    (void)unused;
    measurer = (pid_t)syscall(SYS_gettid);
    sleep_until(window_from);
    long before = switches();
    sleep_until(window_to);
    switches_in_window = switches() - before;
    return NULL;
}

/* Tick k of timer i, delivered now. */
static void ticked(int i, int64_t k) {
    int64_t now = now_ns();
    if (now < window_from || now >= window_to) return;
    int n = atomic_fetch_add(&sample_count, 1);
    if (n < MAX_SAMPLES) samples[n] = now - (armed_at[i] + k * SECOND);
}

static void tocsin_tick(tocsin_engine *engine, const tocsin_event *event, void *data) {
    (void)engine;
    ticked((int)(intptr_t)data, (int64_t)event->tick);
}

static gboolean glib_tick(gpointer data) {
    int i = (int)(intptr_t)data;
    ticked(i, ++ticks_of[i]);
    return G_SOURCE_CONTINUE;
}

static gboolean glib_quit(gpointer loop) {
    g_main_loop_quit(loop);
    return G_SOURCE_REMOVE;
}

static void uv_tick(uv_timer_t *timer) {
    int i = (int)(intptr_t)timer->data;
    ticked(i, ++ticks_of[i]);
}

static void uv_quit(uv_timer_t *timer) { uv_stop(timer->loop); }

int main(int argc, char **argv) {
    const char *engine = argc > 1 ? argv[1] : "";
    double seconds = argc > 2 ? atof(argv[2]) : 10;
    int tocsin_mode = !strncmp(engine, "tocsin-", 7);
    if (!tocsin_mode && strcmp(engine, "glib") && strcmp(engine, "glib-s") && strcmp(engine, "uv")) {
        fprintf(stderr, "usage: leeway tocsin-0|tocsin-1|glib|glib-s|uv [SECONDS]\n");
        return 2;
    }
    int64_t phases[TIMERS];
    srand(42);
    for (int i = 0; i < TIMERS; i++) phases[i] = (int64_t)(rand() % 1000) * 1000000 + rand() % 1000000;
    qsort(phases, TIMERS, sizeof *phases, compare_int64);
    int64_t t0 = now_ns();
    window_from = t0 + 5 * SECOND / 2;
    window_to = window_from + (int64_t)(seconds * 1e9);
    pthread_t thread;
    pthread_create(&thread, NULL, measure, NULL);

    tocsin_engine *tocsin = NULL;
    GMainLoop *loop = NULL;
    uv_loop_t uv;
    static uv_timer_t uv_timers[TIMERS + 1];
    if (tocsin_mode) tocsin_engine_new(TOCSIN_ENGINE_DEFAULT, &tocsin);
    if (!strncmp(engine, "glib", 4)) loop = g_main_loop_new(NULL, FALSE);
    if (!strcmp(engine, "uv")) uv_loop_init(&uv);
    for (int i = 0; i < TIMERS; i++) {
        sleep_until(t0 + phases[i]);
        armed_at[i] = now_ns();
        void *data = (void *)(intptr_t)i;
        if (tocsin_mode) {
            tocsin_timer watch = 0;
            tocsin_stopwatch_new(tocsin, &watch);
            tocsin_timer_set_events(tocsin, watch, TOCSIN_EVENTS_TICK);
            tocsin_timer_set_callback(tocsin, watch, tocsin_tick, data);
            tocsin_timer_set_tick(tocsin, watch, 1);
            tocsin_timer_set_leeway(tocsin, watch, engine[7] == '1' ? 1 : 0);
            tocsin_timer_start(tocsin, watch);
        } else if (!strcmp(engine, "glib")) {
            g_timeout_add(1000, glib_tick, data);
        } else if (!strcmp(engine, "glib-s")) {
            g_timeout_add_seconds(1, glib_tick, data);
        } else {
            uv_update_time(&uv); /* the loop is not running yet: its cached time is stale */
            uv_timer_init(&uv, &uv_timers[i]);
            uv_timers[i].data = data;
            uv_timer_start(&uv_timers[i], uv_tick, 1000, 1000);
        }
    }
    /* Each host's thread runs its loop (Tocsin's runs its own) until the window ends. */
    if (tocsin_mode) {
        sleep_until(window_to + SECOND / 10);
    } else if (loop) {
        g_timeout_add((guint)((window_to - now_ns()) / 1000000 + 100), glib_quit, loop);
        g_main_loop_run(loop);
    } else {
        uv_timer_init(&uv, &uv_timers[TIMERS]);
        uv_timer_start(&uv_timers[TIMERS], uv_quit, (uint64_t)((window_to - now_ns()) / 1000000 + 100), 0);
        uv_run(&uv, UV_RUN_DEFAULT);
    }
    pthread_join(thread, NULL);
    if (tocsin) tocsin_engine_free(tocsin);

    int count = atomic_load(&sample_count);
    if (count > MAX_SAMPLES) count = MAX_SAMPLES;
    if (count == 0) {
        fprintf(stderr, "leeway: no ticks for %s\n", engine);
        return 1;
    }
    qsort(samples, (size_t)count, sizeof *samples, compare_int64);
    printf("workload=leeway engine=%s wakeups_per_s=%.2f ticks_per_s=%.1f late_p50_ms=%.3f late_p99_ms=%.3f "
           "late_max_ms=%.3f\n",
           engine, switches_in_window / seconds, count / seconds, samples[count / 2] / 1e6,
           samples[(int)(count * 0.99)] / 1e6, samples[count - 1] / 1e6);
    return 0;
}
