/* The engine's lock: glibc's adaptive mutex (PTHREAD_MUTEX_ADAPTIVE_NP,
   which spins briefly before it sleeps) with one condition variable on
   CLOCK_MONOTONIC.

   The engine's critical sections are tens of nanoseconds, and a thread
   starting timers and the engine thread delivering their events take the
   lock in turn millions of times a second, so the loser should spin a
   little rather than sleep at once: the adaptive mutex does. A hand-written
   futex lock that spun 200 times was measured against it side by side
   (bench/README.md, "The lock and prefaulting"): it won nothing (8 threads
   contending: 5.03 against 5.52 million pairs a second; the warm three calls
   101 against 98 ns) and was replaced by this. */
#ifndef TOCSIN_LOCK_H
#define TOCSIN_LOCK_H

#include <pthread.h>
#include <stdint.h>

typedef struct {
    pthread_mutex_t mutex;
    pthread_cond_t condition;
} tocsin_lock;

/* Internal to the engine's libraries: never exported. */
#define TOCSIN_LOCK_INTERNAL __attribute__((visibility("hidden")))

TOCSIN_LOCK_INTERNAL void tocsin_lock_init(tocsin_lock *lock);
TOCSIN_LOCK_INTERNAL void tocsin_lock_destroy(tocsin_lock *lock);

static inline void tocsin_lock_acquire(tocsin_lock *lock) { pthread_mutex_lock(&lock->mutex); }
static inline void tocsin_lock_release(tocsin_lock *lock) { pthread_mutex_unlock(&lock->mutex); }

/* Releases the lock, sleeps until a broadcast (or `nanoseconds` pass, when
   not negative), and takes the lock again. Returns 0, or -1 on a timeout.
   May also return early without a broadcast: callers re-check in a loop. */
TOCSIN_LOCK_INTERNAL int tocsin_lock_wait(tocsin_lock *lock, int64_t nanoseconds);

/* Wakes every thread in tocsin_lock_wait. Call with the lock held. */
TOCSIN_LOCK_INTERNAL void tocsin_lock_broadcast(tocsin_lock *lock);

#endif
