/* Where a burst of three-call starts spends its time: N timers armed with
 * tocsin_countdown_new + tocsin_timer_set_callback + tocsin_timer_start in
 * a fresh engine, every iteration timed, then a one-line summary: ns per
 * timer, the iterations that stalled (over 2 µs: mostly page faults; over
 * 20 µs: preemption, lock sleeps, table growth) and how long they took in
 * all, the mean of the others, page faults and the calling thread's context
 * switches. The clock read per iteration adds about 30 ns to every figure.
 *
 *   burst MODE N [pin] [list]    MODE: default | polled
 *
 * pin: the calling thread on CPU 0 and the engine's thread on CPU 1.
 * list: also print "iteration:µs" for every stall over 20 µs.
 * Not a test and not in run.sh's tables: a tool for looking into one cell. */
#define _GNU_SOURCE
#include <dirent.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <tocsin.h>

#include "common.h"

static void ignore(tocsin_engine *engine, const tocsin_event *event, void *data) {
    (void)engine, (void)event, (void)data;
}

/* Every thread but the caller goes to CPU 1: the engine's thread, the only
   other one. */
static void pin_threads(void) {
    DIR *tasks = opendir("/proc/self/task");
    if (!tasks) return;
    for (struct dirent *task; (task = readdir(tasks));) {
        if (task->d_name[0] == '.') continue;
        pid_t tid = (pid_t)atoi(task->d_name);
        cpu_set_t cpus;
        CPU_ZERO(&cpus);
        CPU_SET(tid == getpid() ? 0 : 1, &cpus);
        sched_setaffinity(tid, sizeof cpus, &cpus);
    }
    closedir(tasks);
}

int main(int argc, char **argv) {
    if (argc < 3) { fprintf(stderr, "usage: burst default|polled N [pin] [list]\n"); return 2; }
    int polled = !strcmp(argv[1], "polled");
    int n = atoi(argv[2]), pin = 0, list = 0;
    for (int i = 3; i < argc; i++) pin |= !strcmp(argv[i], "pin"), list |= !strcmp(argv[i], "list");
    if (n <= 0) return 2;
    tocsin_timer *timers = malloc(sizeof *timers * (size_t)n);
    int64_t *took = malloc(sizeof *took * (size_t)n);
    if (!timers || !took) return 1;
    tocsin_engine *engine;
    if (tocsin_engine_new(polled ? TOCSIN_ENGINE_POLLED : TOCSIN_ENGINE_DEFAULT, &engine) != TOCSIN_OK) return 1;
    if (pin) pin_threads();

    uint64_t rng = 12345;
    struct rusage before, after;
    getrusage(RUSAGE_THREAD, &before);
    int64_t start = now_ns(), previous = start;
    for (int i = 0; i < n; i++) {
        rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
        double seconds = 60 + 2.0 * (double)(rng >> 11) / (double)(1ULL << 53);
        tocsin_countdown_new(engine, seconds, &timers[i]);
        tocsin_timer_set_callback(engine, timers[i], ignore, NULL);
        tocsin_timer_start(engine, timers[i]);
        int64_t now = now_ns();
        took[i] = now - previous;
        previous = now;
    }
    getrusage(RUSAGE_THREAD, &after);

    int64_t total = previous - start, slow = 0, slower = 0;
    int slow_count = 0, slower_count = 0;
    for (int i = 0; i < n; i++) {
        if (took[i] > 2000) slow += took[i], slow_count++;
        if (took[i] > 20000) slower += took[i], slower_count++;
    }
    printf("mode=%s n=%d ns_per_timer=%lld stalls_2us=%d stalled_2us_ms=%.2f stalls_20us=%d stalled_20us_ms=%.2f "
           "others_ns=%lld faults=%ld voluntary_switches=%ld involuntary_switches=%ld\n",
           argv[1], n, (long long)(total / n), slow_count, (double)slow / 1e6, slower_count, (double)slower / 1e6,
           (long long)((total - slow) / (n - slow_count > 0 ? n - slow_count : 1)),
           after.ru_minflt - before.ru_minflt, after.ru_nvcsw - before.ru_nvcsw, after.ru_nivcsw - before.ru_nivcsw);
    if (list) {
        for (int i = 0; i < n; i++)
            if (took[i] > 20000) printf("%d:%lld ", i, (long long)(took[i] / 1000));
        printf("\n");
    }
    tocsin_engine_free(engine);
    free(took);
    free(timers);
    return 0;
}
