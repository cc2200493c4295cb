/* Saving and restoring timers through the C ABI. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"

static void temp_path(char *out, size_t size, const char *name) {
    snprintf(out, size, "/tmp/tocsin-c-%d-%s", (int)getpid(), name);
}

static void save_load_round_trip(void) {
    char path[128];
    temp_path(path, sizeof path, "timers.json");
    tocsin_engine *engine = NULL, *other = NULL;
    tocsin_engine_new(TOCSIN_ENGINE_MANUAL_CLOCK, &engine);
    tocsin_timer tea = 0, watch = 0, held = 0;
    tocsin_countdown_new(engine, 60, &tea);
    tocsin_timer_set_label(engine, tea, "Tea");
    tocsin_stopwatch_new(engine, &watch);
    tocsin_countdown_new(engine, 30, &held);
    tocsin_timer_start(engine, tea);
    tocsin_timer_start(engine, watch);
    tocsin_timer_start(engine, held);
    tocsin_engine_advance(engine, 5);
    tocsin_timer_suspend(engine, held);
    CHECK_EQ(TOCSIN_EINVAL, tocsin_engine_save(engine, NULL));
    CHECK_EQ(TOCSIN_EIO, tocsin_engine_save(engine, "/nonexistent-dir/x.json"));
    CHECK_EQ(TOCSIN_OK, tocsin_engine_save(engine, path));
    struct stat info;
    CHECK(stat(path, &info) == 0 && (info.st_mode & 0777) == 0600);

    tocsin_engine_new(TOCSIN_ENGINE_MANUAL_CLOCK, &other);
    tocsin_timer own = 0;
    tocsin_countdown_new(other, 1, &own);
    size_t restored = 0;
    CHECK_EQ(TOCSIN_OK, tocsin_engine_load(other, path, &restored));
    CHECK_EQ(3, restored);
    tocsin_timer handles[8];
    CHECK_EQ(4, tocsin_engine_timers(other, handles, 8));
    CHECK_EQ(4, tocsin_engine_timers(other, NULL, 0));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_engine_timers(other, NULL, 3));
    CHECK(handles[0] == own);
    char label[16];
    tocsin_timer_label(other, handles[1], label, sizeof label);
    CHECK(!strcmp(label, "Tea"));
    double value = 0;
    tocsin_timer_elapsed(other, handles[1], &value);
    CHECK(value >= 5 && value < 7); /* plus the (real) time between save and load */
    CHECK_EQ(TOCSIN_RUNNING, tocsin_timer_state(other, handles[2]));
    CHECK_EQ(TOCSIN_SUSPENDED, tocsin_timer_state(other, handles[3]));
    tocsin_timer_remaining(other, handles[3], &value);
    CHECK(value == 25); /* suspended: exactly what it had */
    CHECK_EQ(TOCSIN_EIO, tocsin_engine_load(other, "/nonexistent-file.json", &restored));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_engine_load(other, NULL, &restored));
    FILE *garbage = fopen(path, "w");
    fputs("{\"format\": \"tocsin-timers\", \"version\": 999, \"saved_realtime_ns\": 0, \"timers\": []}", garbage);
    fclose(garbage);
    CHECK_EQ(TOCSIN_ECORRUPT, tocsin_engine_load(other, path, &restored));
    CHECK_EQ(4, tocsin_engine_timers(other, NULL, 0)); /* unchanged */
    unlink(path);
    tocsin_engine_free(engine);
    tocsin_engine_free(other);
}

const test_case persistence_tests[] = {
    {"save_load_round_trip", save_load_round_trip},
    {NULL, NULL},
};
