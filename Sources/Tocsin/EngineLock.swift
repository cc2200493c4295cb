import Glibc

/// A pthread mutex with one condition variable, for the engine's state and
/// for waiting until a running callback returns.
///
/// `@unchecked Sendable`: the mutex and condition are built for use from
/// many threads; their storage is allocated once and never moves.
package final class EngineLock: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    package init() {
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    @inline(__always) package func lock() { pthread_mutex_lock(mutex) }
    @inline(__always) package func unlock() { pthread_mutex_unlock(mutex) }

    /// Waits for `broadcast`; the lock must be held, and is held again on return.
    package func wait() { pthread_cond_wait(condition, mutex) }

    /// As `wait`, but gives up after `nanoseconds`; false if it did.
    package func wait(nanoseconds: Int64) -> Bool {
        var deadline = timespec()
        clock_gettime(CLOCK_REALTIME, &deadline)
        let total = Int64(deadline.tv_nsec) + nanoseconds
        deadline.tv_sec += Int(total / 1_000_000_000)
        deadline.tv_nsec = Int(total % 1_000_000_000)
        return pthread_cond_timedwait(condition, mutex, &deadline) == 0
    }

    package func broadcast() { pthread_cond_broadcast(condition) }
}
