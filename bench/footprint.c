/* footprint: what loading a timer library costs a fresh process.
 *
 *   footprint tocsin|uv|glib PATH
 *
 * dlopen()s the library at PATH (RTLD_NOW, so every relocation is paid for),
 * creates its first timer loop and arms one timer 60 s away, and prints
 *   engine=E load_us=dlopen+first-engine microseconds rss_kb=resident KB after
 *   base_rss_kb=resident KB before (from smaps_rollup, exact; VmRSS is
 *   kept in per-CPU counters and can be off by hundreds of KB)
 * The process links only libc (and libdl): the library and what it needs
 * come in through dlopen, as in a Python or plugin host.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <uv.h>          /* constants only: */
#include "tocsin.h"      /* nothing is linked, all comes through dlopen */

static int64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static long rss_kb(void) {
    FILE *status = fopen("/proc/self/smaps_rollup", "r");
    char line[256];
    long kb = -1;
    while (status && fgets(line, sizeof line, status)) {
        if (!strncmp(line, "Rss:", 4)) kb = atol(line + 4);
    }
    if (status) fclose(status);
    return kb;
}

static void *need(void *library, const char *name) {
    void *symbol = dlsym(library, name);
    if (!symbol) {
        fprintf(stderr, "footprint: no %s\n", name);
        exit(1);
    }
    return symbol;
}

static void timer_callback(void) {}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: footprint tocsin|uv|glib PATH\n");
        return 2;
    }
    const char *engine = argv[1];
    long base = rss_kb();
    int64_t start = now_ns();
    void *library = dlopen(argv[2], RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        fprintf(stderr, "footprint: %s\n", dlerror());
        return 1;
    }
    if (!strcmp(engine, "tocsin")) {
        int (*engine_new)(unsigned, void **) = need(library, "tocsin_engine_new");
        int (*countdown_start)(void *, double, unsigned, void *, void *, uint64_t *) =
            need(library, "tocsin_countdown_start");
        void *handle;
        uint64_t timer;
        if (engine_new(0, &handle) != 0 || countdown_start(handle, 60, TOCSIN_EVENTS_FINISH, (void *)timer_callback, NULL, &timer) != 0) {
            return 1;
        }
    } else if (!strcmp(engine, "uv")) {
        size_t (*loop_size)(void) = need(library, "uv_loop_size");
        int (*loop_init)(void *) = need(library, "uv_loop_init");
        size_t (*handle_size)(int) = need(library, "uv_handle_size");
        int (*timer_init)(void *, void *) = need(library, "uv_timer_init");
        int (*timer_start)(void *, void *, uint64_t, uint64_t) = need(library, "uv_timer_start");
        void *loop = calloc(1, loop_size());
        void *timer = calloc(1, handle_size(UV_TIMER));
        if (loop_init(loop) != 0 || timer_init(loop, timer) != 0 || timer_start(timer, (void *)timer_callback, 60000, 0) != 0) {
            return 1;
        }
    } else if (!strcmp(engine, "glib")) {
        void *(*context_new)(void) = need(library, "g_main_context_new");
        void *(*loop_new)(void *, int) = need(library, "g_main_loop_new");
        void *(*timeout_source_new)(unsigned) = need(library, "g_timeout_source_new");
        void (*set_callback)(void *, void *, void *, void *) = need(library, "g_source_set_callback");
        unsigned (*attach)(void *, void *) = need(library, "g_source_attach");
        void *context = context_new();
        void *source = timeout_source_new(60000);
        set_callback(source, (void *)timer_callback, NULL, NULL);
        if (!loop_new(context, 0) || !attach(source, context)) return 1;
    } else {
        fprintf(stderr, "footprint: unknown engine %s\n", engine);
        return 2;
    }
    int64_t loaded = now_ns();
    printf("engine=%s load_us=%.0f rss_kb=%ld base_rss_kb=%ld\n", engine, (loaded - start) / 1e3, rss_kb(), base);
    return 0;
}
