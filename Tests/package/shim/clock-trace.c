/* Preloaded into Sources/swift-clocks (scripts/test-as-dependency.sh): which
   clock a clock_gettime call asked for, so the program can tell which clock
   Swift's ContinuousClock and SuspendingClock read. Per thread: another
   thread's reading does not count. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <time.h>

static __thread int tracing;
static __thread int asked = -1;

void clock_trace(int on) {
    tracing = on;
    asked = -1;
}

int clock_trace_asked(void) { return asked; }

int clock_gettime(clockid_t clock, struct timespec *time) {
    static int (*real)(clockid_t, struct timespec *);
    if (!real) real = (int (*)(clockid_t, struct timespec *))dlsym(RTLD_NEXT, "clock_gettime");
    if (tracing) asked = (int)clock;
    return real(clock, time);
}
