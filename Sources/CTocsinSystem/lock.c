#include "tocsin_lock.h"

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* About 2-4 microseconds of spinning: longer than the engine ever holds its
   lock in the common paths, much shorter than a sleep and a wake-up. */
enum { SPINS = 200 };

static inline void pause_briefly(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ volatile("yield");
#endif
}

static long futex(_Atomic uint32_t *word, int op, uint32_t value, const struct timespec *timeout) {
    return syscall(SYS_futex, (uint32_t *)word, op | FUTEX_PRIVATE_FLAG, value, timeout, NULL, 0);
}

void tocsin_lock_acquire_slow(tocsin_lock *lock) {
    for (int spin = 0; spin < SPINS; spin++) {
        uint32_t state = atomic_load_explicit(&lock->state, memory_order_relaxed);
        if (state == 0) {
            if (atomic_compare_exchange_weak_explicit(&lock->state, &state, 1, memory_order_acquire,
                                                      memory_order_relaxed))
                return;
        } else if (state == 2) {
            break; /* others sleep already: queue behind them */
        }
        pause_briefly();
    }
    /* Mark the lock "maybe sleepers" so the holder's release wakes one. */
    while (atomic_exchange_explicit(&lock->state, 2, memory_order_acquire) != 0)
        futex(&lock->state, FUTEX_WAIT, 2, NULL);
}

void tocsin_lock_wake_one(tocsin_lock *lock) { futex(&lock->state, FUTEX_WAKE, 1, NULL); }

int tocsin_lock_wait(tocsin_lock *lock, int64_t nanoseconds) {
    uint32_t sequence = atomic_load_explicit(&lock->sequence, memory_order_relaxed);
    tocsin_lock_release(lock);
    struct timespec timeout = {(time_t)(nanoseconds / 1000000000), (long)(nanoseconds % 1000000000)};
    long status = futex(&lock->sequence, FUTEX_WAIT, sequence, nanoseconds >= 0 ? &timeout : NULL);
    int timed_out = status != 0 && errno == ETIMEDOUT;
    /* Other threads may sleep on the lock too: take it in the "maybe
       sleepers" state so none of them is forgotten. */
    while (atomic_exchange_explicit(&lock->state, 2, memory_order_acquire) != 0)
        futex(&lock->state, FUTEX_WAIT, 2, NULL);
    return timed_out ? -1 : 0;
}

void tocsin_lock_broadcast(tocsin_lock *lock) {
    atomic_fetch_add_explicit(&lock->sequence, 1, memory_order_release);
    futex(&lock->sequence, FUTEX_WAKE, INT_MAX, NULL);
}
