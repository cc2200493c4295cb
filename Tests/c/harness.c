#include "harness.h"

#include <string.h>

int harness_failures;
const char *harness_skipped;

void record_event(tocsin_engine *engine, const tocsin_event *event, void *log_ptr) {
    event_log *log = log_ptr;
    int index = atomic_load(&log->count);
    if (index >= MAX_EVENTS) return;
    log->events[index] = *event;
    tocsin_engine_now(engine, &log->delivered_at[index]);
    atomic_store(&log->count, index + 1);
}

const char *event_summary(event_log *log) {
    static char text[8192];
    size_t used = 0;
    text[0] = 0;
    int count = atomic_load(&log->count);
    for (int i = 0; i < count && used < sizeof text - 32; i++) {
        const tocsin_event *e = &log->events[i];
        if (e->kind == TOCSIN_EVENT_TICK)
            used += (size_t)snprintf(text + used, sizeof text - used, "%sT%llu", i ? " " : "",
                                     (unsigned long long)e->tick);
        else if (e->kind == TOCSIN_EVENT_FINISH)
            used += (size_t)snprintf(text + used, sizeof text - used, "%sF", i ? " " : "");
        else
            used += (size_t)snprintf(text + used, sizeof text - used, "%sS%d", i ? " " : "", e->state);
    }
    return text;
}

double boot_seconds(void) {
    struct timespec now;
    clock_gettime(CLOCK_BOOTTIME, &now);
    return (double)now.tv_sec + (double)now.tv_nsec / 1e9;
}

void sleep_ms(int ms) {
    struct timespec pause = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&pause, NULL);
}

int wait_for(atomic_int *flag, int value, int timeout_ms) {
    for (int waited = 0; waited < timeout_ms; waited++) {
        if (atomic_load(flag) >= value) return 1;
        sleep_ms(1);
    }
    return atomic_load(flag) >= value;
}

static int run_suite(const char *suite, const test_case *tests, int *passed, int *failed, int *skipped) {
    for (const test_case *test = tests; test->name; test++) {
        int before = harness_failures;
        harness_skipped = NULL;
        test->fn();
        if (harness_failures == before && harness_skipped) {
            (*skipped)++;
            printf("skip %s.%s (%s)\n", suite, test->name, harness_skipped);
        } else if (harness_failures == before) {
            (*passed)++;
            printf("ok   %s.%s\n", suite, test->name);
        } else {
            (*failed)++;
            printf("FAIL %s.%s\n", suite, test->name);
        }
        fflush(stdout);
    }
    return 0;
}

int main(int argc, char **argv) {
    int passed = 0, failed = 0, skipped = 0;
    const char *only = argc > 1 ? argv[1] : NULL;
    if (!only || !strcmp(only, "manual")) run_suite("manual", manual_tests, &passed, &failed, &skipped);
    if (!only || !strcmp(only, "polled")) run_suite("polled", polled_tests, &passed, &failed, &skipped);
    if (!only || !strcmp(only, "persistence")) run_suite("persistence", persistence_tests, &passed, &failed, &skipped);
    if (!only || !strcmp(only, "events")) run_suite("events", events_tests, &passed, &failed, &skipped);
    if (!only || !strcmp(only, "adjust")) run_suite("adjust", adjust_tests, &passed, &failed, &skipped);
    if (!only || !strcmp(only, "ticks")) run_suite("ticks", ticks_tests, &passed, &failed, &skipped);
    if (!only || !strcmp(only, "bounded")) run_suite("bounded", bounded_tests, &passed, &failed, &skipped);
    if (!only || !strcmp(only, "clocks")) run_suite("clocks", clocks_tests, &passed, &failed, &skipped);
    if (!only || !strcmp(only, "calendar")) run_suite("calendar", calendar_tests, &passed, &failed, &skipped);
    if (!only || !strcmp(only, "reasons")) run_suite("reasons", reasons_tests, &passed, &failed, &skipped);
    if (!only || !strcmp(only, "wake")) run_suite("wake", wake_tests, &passed, &failed, &skipped);
    /* Only when asked: it needs a process without CAP_WAKE_ALARM (make test-c runs it under setpriv). */
    if (only && !strcmp(only, "wake_denied")) run_suite("wake_denied", wake_denied_tests, &passed, &failed, &skipped);
    if (!only || !strcmp(only, "threaded")) run_suite("threaded", threaded_tests, &passed, &failed, &skipped);
    printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
    return failed ? 1 : 0;
}
