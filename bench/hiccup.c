/* hiccup: how long the machine takes the processor away from a thread that
 * only reads the clock, over SECONDS (default 3): the longest gap between
 * two reads, and how many gaps passed 100 µs and 1 ms. No timer involved:
 * what it reports is the floor under every lateness measured here.
 *   hiccup [SECONDS] */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static int64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

int main(int argc, char **argv) {
    double seconds = argc > 1 ? atof(argv[1]) : 3;
    int64_t last = now_ns(), end = last + (int64_t)(seconds * 1e9), longest = 0;
    long over_100us = 0, over_1ms = 0;
    for (int64_t t = last; t < end; last = t) {
        t = now_ns();
        int64_t gap = t - last;
        if (gap > longest) longest = gap;
        over_100us += gap > 100000;
        over_1ms += gap > 1000000;
    }
    printf("seconds=%.0f longest_gap_us=%.1f gaps_over_100us=%ld gaps_over_1ms=%ld\n", seconds, longest / 1e3,
           over_100us, over_1ms);
    return 0;
}
