/* Linux interfaces the Swift Glibc module does not import. */
#ifndef TOCSIN_SYSTEM_H
#define TOCSIN_SYSTEM_H

#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/timerfd.h>

/* prctl is variadic, so Swift cannot call it directly. */
static inline int tocsin_set_timer_slack(unsigned long nanoseconds) {
    return prctl(PR_SET_TIMERSLACK, nanoseconds, 0UL, 0UL, 0UL);
}

/* Names the calling thread (at most 15 bytes), as top and gdb show it. */
static inline int tocsin_set_thread_name(const char *name) {
    return prctl(PR_SET_NAME, (unsigned long)name, 0UL, 0UL, 0UL);
}

#endif
