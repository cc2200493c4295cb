/* Saving and loading an engine's timers (tocsin_engine_save/load): N
   labelled countdowns, half of them suspended, saved to a file and loaded
   into a fresh engine; the median of 5 each, and the file's size. Not a
   test; no other library here saves its timers, so this compares Tocsin
   with itself across commits (bench/README.md).
   usage: persistence N DIRECTORY */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <tocsin.h>

#include "common.h"

static void check(int status, const char *what) {
    if (status < 0) { fprintf(stderr, "persistence: %s: %s\n", what, tocsin_strerror(status)); exit(1); }
}

int main(int argc, char **argv) {
    if (argc != 3) { fprintf(stderr, "usage: persistence N DIRECTORY\n"); return 2; }
    int n = atoi(argv[1]);
    char path[4096];
    snprintf(path, sizeof path, "%s/timers.json", argv[2]);
    tocsin_engine *engine;
    check(tocsin_engine_new(TOCSIN_ENGINE_MANUAL_CLOCK, &engine), "new");
    for (int i = 0; i < n; i++) {
        tocsin_timer timer;
        char label[32];
        snprintf(label, sizeof label, "Timer %d", i);
        check(tocsin_countdown_start(engine, 60.0 + i, 0, NULL, NULL, &timer), "start");
        check(tocsin_timer_set_label(engine, timer, label), "label");
        if (i % 2) check(tocsin_timer_suspend(engine, timer), "suspend");
    }
    int64_t saves[5], loads[5];
    for (int k = 0; k < 5; k++) {
        int64_t began = now_ns();
        check(tocsin_engine_save(engine, path), "save");
        saves[k] = now_ns() - began;
        tocsin_engine *fresh;
        check(tocsin_engine_new(TOCSIN_ENGINE_MANUAL_CLOCK, &fresh), "new");
        size_t restored = 0;
        began = now_ns();
        check(tocsin_engine_load(fresh, path, &restored), "load");
        loads[k] = now_ns() - began;
        if (restored != (size_t)n) { fprintf(stderr, "persistence: %zu of %d loaded\n", restored, n); return 1; }
        tocsin_engine_free(fresh);
    }
    struct stat info;
    if (stat(path, &info) != 0) return 1;
    qsort(saves, 5, sizeof *saves, compare_int64);
    qsort(loads, 5, sizeof *loads, compare_int64);
    printf("engine=tocsin n=%d save_ms=%.1f load_ms=%.1f file_bytes=%lld\n", n, saves[2] / 1e6, loads[2] / 1e6,
           (long long)info.st_size);
    tocsin_engine_free(engine);
    return 0;
}
