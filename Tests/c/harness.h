/* A tiny test harness: CHECK records a failure and carries on; each TEST
 * passes if none of its checks failed; SKIP ends a test that cannot run here,
 * counted apart. main() prints "N passed, N failed, N skipped". */
#ifndef TOCSIN_TEST_HARNESS_H
#define TOCSIN_TEST_HARNESS_H

#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>

#include "tocsin.h"

extern int harness_failures;
extern const char *harness_skipped; /* why the running test was skipped */

/* Ends the test as skipped (not passed), saying why. */
#define SKIP(why)                                                              \
    do {                                                                       \
        harness_skipped = (why);                                               \
        return;                                                                \
    } while (0)

#define CHECK(cond)                                                            \
    do {                                                                       \
        if (!(cond)) {                                                         \
            harness_failures++;                                                \
            fprintf(stderr, "  %s:%d: CHECK(%s) failed\n", __FILE__,           \
                    __LINE__, #cond);                                          \
        }                                                                      \
    } while (0)

#define CHECK_EQ(expected, actual)                                             \
    do {                                                                       \
        long long e_ = (long long)(expected), a_ = (long long)(actual);        \
        if (e_ != a_) {                                                        \
            harness_failures++;                                                \
            fprintf(stderr, "  %s:%d: %s == %s failed: %lld != %lld %s\n",     \
                    __FILE__, __LINE__, #expected, #actual, e_, a_,            \
                    a_ < 0 && a_ >= TOCSIN_ERANGE ? tocsin_err_name((int)a_)  \
                                                   : "");                      \
        }                                                                      \
    } while (0)

#define CHECK_NEAR(expected, actual, tolerance)                                \
    CHECK(fabs((double)(expected) - (double)(actual)) <= (tolerance))

typedef void (*test_fn)(void);
typedef struct {
    const char *name;
    test_fn fn;
} test_case;

/* Events as recorded by record_event, for comparing whole sequences. */
#define MAX_EVENTS 4096
typedef struct {
    atomic_int count;
    tocsin_event events[MAX_EVENTS];
    double delivered_at[MAX_EVENTS]; /* engine clock at delivery */
} event_log;

void record_event(tocsin_engine *engine, const tocsin_event *event, void *log);
/* "S1 T1 T2 F S3": STATE(state), TICK(n), FINISH; compared as text. */
const char *event_summary(event_log *log);
double boot_seconds(void);
/* Waits up to timeout_ms for *flag >= value; returns whether it did. */
int wait_for(atomic_int *flag, int value, int timeout_ms);
void sleep_ms(int ms);

extern const test_case manual_tests[];
extern const test_case threaded_tests[];
extern const test_case polled_tests[];
extern const test_case persistence_tests[];
extern const test_case events_tests[];
extern const test_case adjust_tests[];
extern const test_case ticks_tests[];
extern const test_case bounded_tests[];
extern const test_case clocks_tests[];
extern const test_case calendar_tests[];
extern const test_case reasons_tests[];
extern const test_case wake_tests[];
extern const test_case wake_denied_tests[];

#endif
