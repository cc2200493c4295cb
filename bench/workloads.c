/* workloads: the ticks, idle and contention workloads on Tocsin (C ABI,
 * DEFAULT mode), libuv, GLib and the C floor (one timerfd; for contention,
 * a binary heap behind one pthread mutex). Prints one line of key=value.
 *
 *   workloads ticks ENGINE        one 10 ms tick, 1000 ticks:
 *       drift_ms   lateness of the last tick (cumulative drift)
 *       late_p99_us  p99 of each tick's lateness against start + k x 10 ms
 *       jitter_p99_us  p99 of |interval - 10 ms| between consecutive ticks
 *   workloads idle ENGINE         one timer 5 s away:
 *       switches_per_s  context switches per second of every thread but
 *                       the measuring one, from 0.1 s to 4.9 s
 *       late_us         that timer's lateness
 *   workloads contention ENGINE   4 threads, each arming and cancelling its
 *                                 own timers on one shared engine:
 *       mops       million arm+cancel pairs per second, all threads
 * ENGINE: tocsin | uv | glib | floor (uv is not thread-safe: no contention).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <glib.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <time.h>
#include <tocsin.h>
#include <unistd.h>
#include <uv.h>

#include "common.h"

static void sleep_until(int64_t deadline) {
    struct timespec t = {deadline / 1000000000, deadline % 1000000000};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, NULL) != 0) {}
}

static int64_t p99(int64_t *values, int count) {
    qsort(values, (size_t)count, sizeof *values, compare_int64);
    return values[(int)(count * 0.99)];
}

/* ---- ticks ---- */
enum { TICKS = 1000 };
static const int64_t PERIOD = 10000000; /* 10 ms */
static int64_t tick_at[TICKS + 1];      /* tick_at[0]: when the timer was started */
static atomic_int ticks_seen;

static int on_tick(void) { /* true once the last tick is in */
    int k = atomic_load(&ticks_seen) + 1;
    if (k > TICKS) return 1;
    tick_at[k] = now_ns();
    atomic_store(&ticks_seen, k);
    return k == TICKS;
}

static void tocsin_tick(tocsin_engine *e, const tocsin_event *ev, void *data) {
    (void)e, (void)data;
    if (ev->kind == TOCSIN_EVENT_TICK) on_tick();
}
static void uv_tick(uv_timer_t *t) { if (on_tick()) uv_timer_stop(t); }
static GMainLoop *glib_loop;
static gboolean glib_tick(gpointer data) {
    (void)data;
    if (!on_tick()) return G_SOURCE_CONTINUE;
    g_main_loop_quit(glib_loop);
    return G_SOURCE_REMOVE;
}

static void run_ticks(const char *engine) {
    if (!strcmp(engine, "tocsin")) {
        tocsin_engine *e;
        tocsin_timer watch;
        tocsin_engine_new(TOCSIN_ENGINE_DEFAULT, &e);
        tocsin_stopwatch_new(e, &watch);
        tocsin_timer_set_tick(e, watch, PERIOD / 1e9);
        tocsin_timer_set_callback(e, watch, tocsin_tick, NULL);
        tick_at[0] = now_ns();
        tocsin_timer_start(e, watch);
        while (atomic_load(&ticks_seen) < TICKS) usleep(20000);
        tocsin_engine_free(e);
    } else if (!strcmp(engine, "uv")) {
        uv_loop_t *loop = uv_default_loop();
        uv_timer_t timer;
        uv_timer_init(loop, &timer);
        uv_update_time(loop);
        tick_at[0] = now_ns();
        uv_timer_start(&timer, uv_tick, PERIOD / 1000000, PERIOD / 1000000);
        uv_run(loop, UV_RUN_DEFAULT);
    } else if (!strcmp(engine, "glib")) {
        glib_loop = g_main_loop_new(NULL, FALSE);
        tick_at[0] = now_ns();
        g_timeout_add(PERIOD / 1000000, glib_tick, NULL);
        g_main_loop_run(glib_loop);
    } else { /* floor: one timerfd re-armed for start + k x period */
        int fd = timerfd_create(CLOCK_MONOTONIC, 0);
        tick_at[0] = now_ns();
        for (int k = 1; k <= TICKS; k++) {
            int64_t due = tick_at[0] + k * PERIOD;
            struct itimerspec spec = {{0, 0}, {due / 1000000000, due % 1000000000}};
            timerfd_settime(fd, TFD_TIMER_ABSTIME, &spec, NULL);
            uint64_t expirations;
            if (read(fd, &expirations, sizeof expirations) < 0) break;
            on_tick();
        }
        close(fd);
    }
    static int64_t late[TICKS], jitter[TICKS];
    for (int k = 1; k <= TICKS; k++) {
        late[k - 1] = tick_at[k] - (tick_at[0] + k * PERIOD);
        jitter[k - 1] = llabs(tick_at[k] - tick_at[k - 1] - PERIOD);
    }
    int64_t drift = late[TICKS - 1];
    printf("workload=ticks engine=%s drift_ms=%.3f late_p99_us=%.1f jitter_p99_us=%.1f\n", engine, drift / 1e6,
           p99(late, TICKS) / 1e3, p99(jitter, TICKS) / 1e3);
}

/* ---- idle ---- */
static const int64_t IDLE_AWAY = 5000000000; /* 5 s */
static int64_t idle_deadline, idle_fired;
static pid_t measurer;

static long switches(void) { return process_switches(measurer); }

static double idle_rate;
static void *measure_idle(void *unused) {
    (void)unused;
    measurer = (pid_t)syscall(SYS_gettid);
    int64_t from = idle_deadline - IDLE_AWAY + 100000000, to = idle_deadline - 100000000;
    sleep_until(from);
    long before = switches();
    sleep_until(to);
    idle_rate = (switches() - before) / ((to - from) / 1e9);
    return NULL;
}

static atomic_int idle_done;
static void idle_fire(void) { idle_fired = now_ns(); atomic_store(&idle_done, 1); }
static void tocsin_idle(tocsin_engine *e, const tocsin_event *ev, void *data) {
    (void)e, (void)data;
    if (ev->kind == TOCSIN_EVENT_FINISH) idle_fire();
}
static void uv_idle(uv_timer_t *t) { (void)t; idle_fire(); }
static gboolean glib_idle(gpointer data) {
    (void)data;
    idle_fire();
    g_main_loop_quit(glib_loop);
    return G_SOURCE_REMOVE;
}

static void run_idle(const char *engine) {
    pthread_t thread;
    idle_deadline = now_ns() + IDLE_AWAY;
    pthread_create(&thread, NULL, measure_idle, NULL);
    if (!strcmp(engine, "tocsin")) {
        tocsin_engine *e;
        tocsin_timer timer;
        tocsin_engine_new(TOCSIN_ENGINE_DEFAULT, &e);
        tocsin_countdown_new(e, (idle_deadline - now_ns()) / 1e9, &timer);
        tocsin_timer_set_callback(e, timer, tocsin_idle, NULL);
        tocsin_timer_start(e, timer);
        pthread_join(thread, NULL); /* the host's thread sleeps too */
        while (!atomic_load(&idle_done)) usleep(1000);
        tocsin_engine_free(e);
    } else if (!strcmp(engine, "uv")) {
        uv_loop_t *loop = uv_default_loop();
        uv_timer_t timer;
        uv_timer_init(loop, &timer);
        uv_update_time(loop);
        uv_timer_start(&timer, uv_idle, (uint64_t)ceil((idle_deadline - now_ns()) / 1e6), 0);
        uv_run(loop, UV_RUN_DEFAULT);
    } else if (!strcmp(engine, "glib")) {
        glib_loop = g_main_loop_new(NULL, FALSE);
        g_timeout_add((guint)ceil((idle_deadline - now_ns()) / 1e6), glib_idle, NULL);
        g_main_loop_run(glib_loop);
    } else {
        int fd = timerfd_create(CLOCK_MONOTONIC, 0);
        struct itimerspec spec = {{0, 0}, {idle_deadline / 1000000000, idle_deadline % 1000000000}};
        timerfd_settime(fd, TFD_TIMER_ABSTIME, &spec, NULL);
        uint64_t expirations;
        if (read(fd, &expirations, sizeof expirations) > 0) idle_fire();
        close(fd);
    }
    pthread_join(thread, NULL);
    printf("workload=idle engine=%s switches_per_s=%.2f late_us=%.1f\n", engine, idle_rate,
           (idle_fired - idle_deadline) / 1e3);
}

/* ---- contention ---- */
enum { MAX_THREADS = 64, PAIRS = 250000, OWN = 1024 };
static int contention_threads = 4; /* contention's third argument, if given */
static tocsin_engine *shared_engine;
static pthread_barrier_t ready;

/* The floor for a thread-safe engine: a binary heap with a position index
 * behind one mutex (no timerfd re-arm, as Tocsin's cancel does none). */
static floor_heap heap;
static pthread_mutex_t heap_lock = PTHREAD_MUTEX_INITIALIZER;

static void ignore(tocsin_engine *e, const tocsin_event *ev, void *data) { (void)e, (void)ev, (void)data; }
static gboolean glib_never(gpointer data) { (void)data; return G_SOURCE_REMOVE; }

static const char *contention_engine;
static void *contend(void *arg) {
    int id = (int)(intptr_t)arg;
    if (!strcmp(contention_engine, "tocsin")) {
        tocsin_timer own[OWN];
        for (int i = 0; i < OWN; i++) {
            tocsin_countdown_new(shared_engine, 60 + i * 1e-3, &own[i]);
            tocsin_timer_set_callback(shared_engine, own[i], ignore, NULL);
        }
        pthread_barrier_wait(&ready);
        for (int i = 0; i < PAIRS; i++) {
            tocsin_timer_start(shared_engine, own[i % OWN]);
            tocsin_timer_cancel(shared_engine, own[i % OWN]);
        }
    } else if (!strcmp(contention_engine, "glib")) {
        pthread_barrier_wait(&ready);
        for (int i = 0; i < PAIRS; i++) g_source_remove(g_timeout_add(60000 + i % OWN, glib_never, NULL));
    } else {
        pthread_barrier_wait(&ready);
        for (int i = 0; i < PAIRS; i++) {
            int index = id * OWN + i % OWN;
            pthread_mutex_lock(&heap_lock);
            floor_push(&heap, index, now_ns() + 60000000000LL);
            pthread_mutex_unlock(&heap_lock);
            pthread_mutex_lock(&heap_lock);
            floor_remove(&heap, index);
            pthread_mutex_unlock(&heap_lock);
        }
    }
    pthread_barrier_wait(&ready);
    return NULL;
}

static void run_contention(const char *engine) {
    contention_engine = engine;
    if (!strcmp(engine, "uv")) {
        printf("workload=contention engine=uv mops=nan\n"); /* libuv is not thread-safe */
        return;
    }
    if (!strcmp(engine, "tocsin")) tocsin_engine_new(TOCSIN_ENGINE_DEFAULT, &shared_engine);
    if (!strcmp(engine, "floor") && !floor_init(&heap, contention_threads * OWN)) exit(1);
    pthread_barrier_init(&ready, NULL, (unsigned)contention_threads + 1);
    pthread_t threads[MAX_THREADS];
    for (int i = 0; i < contention_threads; i++) pthread_create(&threads[i], NULL, contend, (void *)(intptr_t)i);
    pthread_barrier_wait(&ready);
    int64_t start = now_ns();
    pthread_barrier_wait(&ready);
    int64_t elapsed = now_ns() - start;
    for (int i = 0; i < contention_threads; i++) pthread_join(threads[i], NULL);
    if (shared_engine) tocsin_engine_free(shared_engine);
    printf("workload=contention engine=%s threads=%d mops=%.2f\n", engine, contention_threads, (double)contention_threads * PAIRS / elapsed * 1e3);
}

int main(int argc, char **argv) {
    if (argc != 3 && !(argc == 4 && !strcmp(argv[1], "contention"))) {
        fprintf(stderr, "usage: workloads ticks|idle|contention tocsin|uv|glib|floor [contention_threads (contention; default 4)]\n");
        return 2;
    }
    if (argc == 4) contention_threads = atoi(argv[3]);
    if (contention_threads < 1 || contention_threads > MAX_THREADS) return 2;
    if (!strcmp(argv[1], "ticks")) run_ticks(argv[2]);
    else if (!strcmp(argv[1], "idle")) run_idle(argv[2]);
    else if (!strcmp(argv[1], "contention")) run_contention(argv[2]);
    else return 2;
    return 0;
}
