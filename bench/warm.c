/* The schedule path without a fresh process's costs: N timers armed in a
 * loop, ROUNDS times, on tables and pages already in use (each round frees
 * or stops what the one before armed, untimed), so no page faults and no
 * table growth are in the figure. Prints the minimum and the median over
 * the rounds of ns per timer, each including one clock read by the harness
 * (about 30 ns here), as oneshot's schedule_ns does.
 *
 *   warm ENGINE N ROUNDS       ENGINE: tocsin | tocsin-default | uv
 *
 * tocsin: the three calls (countdown_new, set_callback, start) on a polled
 * engine, whose STATE events one dispatch per round delivers untimed;
 * tocsin-default: the same on a DEFAULT engine; uv: uv_timer_init,
 * uv_update_time, uv_timer_start, as in oneshot. Not in run.sh's tables: a
 * tool for the warm path (bench/README.md). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <tocsin.h>
#include <uv.h>

#include "common.h"

static void tocsin_cb(tocsin_engine *engine, const tocsin_event *event, void *data) {
    (void)engine, (void)event, (void)data;
}

static void uv_cb(uv_timer_t *timer) { (void)timer; }

int main(int argc, char **argv) {
    if (argc != 4) { fprintf(stderr, "usage: warm tocsin|tocsin-default|uv N ROUNDS\n"); return 2; }
    const char *engine_name = argv[1];
    int n = atoi(argv[2]), rounds = atoi(argv[3]), warmup = 3;
    if (n <= 0 || rounds <= 0) return 2;
    int64_t *per_timer = malloc(sizeof *per_timer * (size_t)rounds);
    int64_t *deadline = malloc(sizeof *deadline * (size_t)n);
    if (!per_timer || !deadline) return 1;

    if (!strncmp(engine_name, "tocsin", 6)) {
        int polled = !strcmp(engine_name, "tocsin");
        tocsin_engine *engine;
        tocsin_timer *timers = malloc(sizeof *timers * (size_t)n);
        if (!timers || tocsin_engine_new(polled ? TOCSIN_ENGINE_POLLED : TOCSIN_ENGINE_DEFAULT, &engine)) return 1;
        for (int round = 0; round < rounds + warmup; round++) {
            int64_t start = now_ns();
            for (int i = 0; i < n; i++) {
                double seconds = 60 + i * 1e-6;
                tocsin_countdown_new(engine, seconds, &timers[i]);
                tocsin_timer_set_callback(engine, timers[i], tocsin_cb, NULL);
                deadline[i] = now_ns() + (int64_t)(seconds * 1e9);
                tocsin_timer_start(engine, timers[i]);
            }
            if (round >= warmup) per_timer[round - warmup] = (now_ns() - start) / n;
            for (int i = 0; i < n; i++) tocsin_timer_free(engine, timers[i]);
            if (polled) tocsin_engine_dispatch(engine);
        }
        tocsin_engine_free(engine);
    } else if (!strcmp(engine_name, "uv")) {
        uv_loop_t *loop = uv_default_loop();
        uv_timer_t *timers = malloc(sizeof *timers * (size_t)n);
        if (!timers) return 1;
        for (int round = 0; round < rounds + warmup; round++) {
            int64_t start = now_ns();
            for (int i = 0; i < n; i++) {
                double seconds = 60 + i * 1e-6;
                uv_timer_init(loop, &timers[i]);
                uv_update_time(loop);
                deadline[i] = now_ns() + (int64_t)(seconds * 1e9);
                uv_timer_start(&timers[i], uv_cb, (uint64_t)ceil(seconds * 1000), 0);
            }
            if (round >= warmup) per_timer[round - warmup] = (now_ns() - start) / n;
            for (int i = 0; i < n; i++) uv_close((uv_handle_t *)&timers[i], NULL);
            uv_run(loop, UV_RUN_NOWAIT);  /* runs the close callbacks */
        }
    } else {
        fprintf(stderr, "unknown engine %s\n", engine_name);
        return 2;
    }
    qsort(per_timer, (size_t)rounds, sizeof *per_timer, compare_int64);
    printf("engine=%s n=%d rounds=%d warm_ns_min=%lld warm_ns_median=%lld\n", engine_name, n, rounds,
           (long long)per_timer[0], (long long)per_timer[rounds / 2]);
    return 0;
}
