/* The engine's lock: a futex mutex that spins briefly before it sleeps, and
   a condition variable on the same futex scheme.

   The engine's critical sections are tens of nanoseconds, and a thread
   starting timers and the engine thread delivering their events take the
   lock in turn millions of times a second, so the loser spins a little
   rather than sleep at once. Uncontended, a pair is one compare-and-swap
   and one exchange, inlined: about 10 instructions. glibc's adaptive mutex
   (PTHREAD_MUTEX_ADAPTIVE_NP), used from e5066e8 to 0.8.0, timed the same
   (bench/README.md, "The lock and prefaulting") but cost 56 instructions
   more on every call (bench/README.md, "Instructions per call"), since
   pthread_mutex_lock and unlock are calls into libc that check the mutex's
   kind first. */
#ifndef TOCSIN_LOCK_H
#define TOCSIN_LOCK_H

#include <stdatomic.h>
#include <stdint.h>

/* Internal to the engine's libraries: never exported. */
#define TOCSIN_LOCK_INTERNAL __attribute__((visibility("hidden")))

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

/* Nothing to free: the lock is two words. */
static inline void tocsin_lock_destroy(tocsin_lock *lock) { (void)lock; }

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

#endif
