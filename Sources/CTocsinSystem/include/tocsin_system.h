/* Linux interfaces the Swift Glibc module does not import. */
#ifndef TOCSIN_SYSTEM_H
#define TOCSIN_SYSTEM_H

#include <signal.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "tocsin_intl.h"
#include "tocsin_lock.h"

/* prctl is variadic, so Swift cannot call it directly. */
static inline int tocsin_set_timer_slack(unsigned long nanoseconds) {
    return prctl(PR_SET_TIMERSLACK, nanoseconds, 0UL, 0UL, 0UL);
}

/* Names the calling thread (at most 15 bytes), as top and gdb show it. */
static inline int tocsin_set_thread_name(const char *name) {
    return prctl(PR_SET_NAME, (unsigned long)name, 0UL, 0UL, 0UL);
}

/* Faults in the pages of [start, start + length) for writing, as a first
   write would, without touching their contents (MADV_POPULATE_WRITE, Linux
   5.14): 0, or -1 with errno (EINVAL on older kernels). Contents never
   change, so a range freed or moved meanwhile costs memory at worst. */
static inline int tocsin_prefault(void *start, size_t length) {
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE), first = (uintptr_t)start & ~(page - 1);
    return madvise((void *)first, length + ((uintptr_t)start - first), MADV_POPULATE_WRITE);
}

#endif
