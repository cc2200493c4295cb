import CTocsinSystem

/// A mutex with one condition variable: `tocsin_lock`, a futex lock that
/// spins briefly before it sleeps (see `tocsin_lock.h` for why). The engine
/// guards its core with one (`LockedCore`); the notifier its tables.
///
/// `@unchecked Sendable`: the lock is built for use from many threads; its
/// storage is allocated once and never moves.
package final class TocsinLock: @unchecked Sendable {
    private let storage = UnsafeMutablePointer<tocsin_lock>.allocate(capacity: 1)

    package init() {
        tocsin_lock_init(storage)
    }

    deinit {
        tocsin_lock_destroy(storage)
        storage.deallocate()
    }

    @inline(__always) package func lock() { tocsin_lock_acquire(storage) }
    @inline(__always) package func unlock() { tocsin_lock_release(storage) }

    /// Runs `body` with the lock held.
    @inline(__always)
    package func withLock<Result, Failure: Error>(_ body: () throws(Failure) -> Result) throws(Failure) -> Result {
        lock()
        defer { unlock() }
        return try body()
    }

    /// Waits for `broadcast`; the lock must be held, and is held again on
    /// return. May return without a broadcast: callers re-check in a loop.
    package func wait() { _ = tocsin_lock_wait(storage, -1) }

    /// As `wait`, but gives up after `nanoseconds`; false if it did.
    package func wait(nanoseconds: Int64) -> Bool {
        tocsin_lock_wait(storage, max(0, nanoseconds)) == 0
    }

    /// Wakes every waiter. Lock held.
    package func broadcast() { tocsin_lock_broadcast(storage) }
}
