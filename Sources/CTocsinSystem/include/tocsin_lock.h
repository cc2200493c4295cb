/* The engine's lock: a futex mutex that spins briefly before it sleeps, and
   a condition variable on the same futex scheme.

   Why not pthread_mutex_t: the engine's critical sections are tens of
   nanoseconds, but a thread starting timers and the engine thread
   delivering their events take the lock in turn millions of times a second.
   A pthread mutex puts the loser to sleep at once, and each sleep and
   wake-up costs microseconds; spinning first lets it wait out the holder.

   TOCSIN_LOCK_PTHREAD (bench/variants.sh only, never in a build that ships)
   makes it glibc's adaptive mutex (PTHREAD_MUTEX_ADAPTIVE_NP, which also
   spins before it sleeps) with a pthread_cond_t on CLOCK_MONOTONIC, so the
   two can be measured side by side: bench/README.md has the table. */
#ifndef TOCSIN_LOCK_H
#define TOCSIN_LOCK_H

#include <stdatomic.h>
#include <stdint.h>

/* Internal to the engine's libraries: never exported. */
#define TOCSIN_LOCK_INTERNAL __attribute__((visibility("hidden")))

#ifdef TOCSIN_LOCK_PTHREAD
#include <pthread.h>

typedef struct {
    pthread_mutex_t mutex;
    pthread_cond_t condition;
} tocsin_lock;

TOCSIN_LOCK_INTERNAL void tocsin_lock_init(tocsin_lock *lock);
static inline void tocsin_lock_acquire(tocsin_lock *lock) { pthread_mutex_lock(&lock->mutex); }
static inline void tocsin_lock_release(tocsin_lock *lock) { pthread_mutex_unlock(&lock->mutex); }
TOCSIN_LOCK_INTERNAL int tocsin_lock_wait(tocsin_lock *lock, int64_t nanoseconds);
TOCSIN_LOCK_INTERNAL void tocsin_lock_broadcast(tocsin_lock *lock);

#else

typedef struct {
    /* 0 free, 1 held, 2 held and a thread may sleep on it. */
    _Atomic uint32_t state;
    /* Bumped by every broadcast; waiters sleep on it. */
    _Atomic uint32_t sequence;
} tocsin_lock;

TOCSIN_LOCK_INTERNAL void tocsin_lock_acquire_slow(tocsin_lock *lock);
TOCSIN_LOCK_INTERNAL void tocsin_lock_wake_one(tocsin_lock *lock);

static inline void tocsin_lock_init(tocsin_lock *lock) {
    atomic_init(&lock->state, 0);
    atomic_init(&lock->sequence, 0);
}

static inline void tocsin_lock_acquire(tocsin_lock *lock) {
    uint32_t expected = 0;
    if (!atomic_compare_exchange_strong_explicit(&lock->state, &expected, 1, memory_order_acquire,
                                                 memory_order_relaxed))
        tocsin_lock_acquire_slow(lock);
}

static inline void tocsin_lock_release(tocsin_lock *lock) {
    if (atomic_exchange_explicit(&lock->state, 0, memory_order_release) == 2) tocsin_lock_wake_one(lock);
}

/* Releases the lock, sleeps until a broadcast (or `nanoseconds` pass, when
   not negative), and takes the lock again. Returns 0, or -1 on a timeout.
   May also return early without a broadcast: callers re-check in a loop. */
TOCSIN_LOCK_INTERNAL int tocsin_lock_wait(tocsin_lock *lock, int64_t nanoseconds);

/* Wakes every thread in tocsin_lock_wait. Call with the lock held. */
TOCSIN_LOCK_INTERNAL void tocsin_lock_broadcast(tocsin_lock *lock);

#endif /* TOCSIN_LOCK_PTHREAD */
#endif
