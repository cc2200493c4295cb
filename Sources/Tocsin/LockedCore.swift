import Glibc
import CTocsinSystem
import TocsinBase

/// The engine's core behind its lock. `withLock` and `withLockAndWaits`
/// are the only ways in: the first hands the body the core itself
/// (`inout EngineCore`), the second a `Locked`, the proof that the lock is
/// held. Every function that needs the lock takes one of the two, so "under
/// the lock" is a fact of the types, not a comment.
///
/// The core itself never waits and never drops the lock. Waiting for a
/// running handler and calling handlers with the lock dropped happen on
/// `Locked`, between accesses to the core, so the compiler keeps nothing of
/// the core in registers across them.
///
/// A value of two pointers, no reference counting: the C ABI reads it from
/// the engine object the host's pointer names and calls it without
/// retaining the engine (see `TocsinC/CEngine.swift`). Its owner
/// (`TimerEngine`) frees it with `deallocate`, when nothing else can reach it.
///
/// `@unchecked Sendable`: the core is reached only with the lock held.
package struct LockedCore: @unchecked Sendable {
    private let lock: UnsafeMutablePointer<tocsin_lock>
    /// Allocated once, never moved; behind a pointer, so accesses need no
    /// exclusivity bookkeeping.
    private let storage: UnsafeMutablePointer<EngineCore>
    /// The core's clock is the manual one (fixed for its life, so read
    /// without the lock).
    let manualClock: Bool

    init(_ core: consuming EngineCore) {
        manualClock = core.delivery == .manualClock
        lock = .allocate(capacity: 1)
        tocsin_lock_init(lock)
        storage = .allocate(capacity: 1)
        storage.initialize(to: core)
    }

    /// Frees the core's memory; the core must have been torn down.
    func deallocate() {
        storage.deinitialize(count: 1)
        storage.deallocate()
        tocsin_lock_destroy(lock)
        lock.deallocate()
    }

    /// The real clock, read before taking the lock so that the lock is held
    /// for less time; nil on a manual clock, whose time the lock guards. For
    /// start and resume only: suspend and cancel read the clock under the
    /// lock, so a timer's time never reads less than an event delivered.
    @inline(__always)
    func clockBeforeLock() -> Int64? {
        manualClock ? nil : bootClockNow()
    }

    /// Runs `body` on the core with the lock held: for calls that never
    /// wait. The core is passed in place (inout), never copied.
    @inline(__always)
    func withLock<Result, Failure: Error>(
        _ body: (inout EngineCore) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        tocsin_lock_acquire(lock)
        defer { tocsin_lock_release(lock) }
        return try body(&storage.pointee)
    }

    /// Runs `body` with the lock held, for calls that wait for the
    /// delivering thread or call handlers (see `Locked`).
    @inline(__always)
    func withLockAndWaits<Result, Failure: Error>(
        _ body: (borrowing Locked) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        tocsin_lock_acquire(lock)
        defer { tocsin_lock_release(lock) }
        return try body(Locked(storage: storage, lock: lock))
    }

    /// Runs `body` on a live timer's slot index with the lock held.
    @inline(__always)
    func withTimer<Result>(
        _ timer: TimerID, _ body: (inout EngineCore, Int32) throws(TocsinError) -> Result
    ) throws(TocsinError) -> Result {
        try withLock { core throws(TocsinError) in
            let index = try core.slotIndex(of: timer)
            // A timer with no extras is on the boot clock, no alarm and no
            // wake timer (a call that makes it one sees to the clocks
            // itself): nothing to catch up or re-arm, one test.
            guard core.slots[index].pointee.flags.contains(.extras) else { return try body(&core, index) }
            core.catchUpClocks(of: index)
            defer { core.rearmWakeIfWakes(index) }  // its deadline may have moved
            return try body(&core, index)
        }
    }
}

/// The engine's lock, held for as long as this exists (the body of
/// `LockedCore.withLockAndWaits`, which alone makes one), except inside
/// `wait` and `unlocked`.
struct Locked: ~Copyable {
    private let storage: UnsafeMutablePointer<EngineCore>
    private let lock: UnsafeMutablePointer<tocsin_lock>

    fileprivate init(storage: UnsafeMutablePointer<EngineCore>, lock: UnsafeMutablePointer<tocsin_lock>) {
        self.storage = storage
        self.lock = lock
    }

    /// The lock-guarded tables. Each use is a fresh access: after `wait` or
    /// `unlocked` it reads what other threads changed meanwhile. Read its
    /// fields and call its mutating methods through it; a non-mutating
    /// method call would copy the whole core first (the pointer's memory
    /// may change under a borrowed copy), so `access` is for those.
    var core: EngineCore {
        @inline(__always) unsafeAddress { UnsafePointer(storage) }
        @inline(__always) nonmutating unsafeMutableAddress { storage }
    }

    /// Runs `body` on the core in place.
    @inline(__always)
    func access<Result, Failure: Error>(_ body: (inout EngineCore) throws(Failure) -> Result) throws(Failure) -> Result {
        try body(&storage.pointee)
    }

    /// This thread is the one inside a delivery round.
    var onDeliveringThread: Bool {
        guard let thread = core.deliveringThread else { return false }
        return pthread_equal(thread, pthread_self()) != 0
    }

    /// Sleeps until a `broadcast`, with the lock dropped meanwhile. May
    /// return without one: callers re-check their condition in a loop.
    func wait() {
        core.waiters += 1
        _ = tocsin_lock_wait(lock, -1)
        core.waiters -= 1
    }

    /// Sleeps while `busy` holds (see `wait`).
    @inline(__always)
    func wait(while busy: (inout EngineCore) -> Bool) {
        while busy(&core) { wait() }
    }

    /// Wakes the threads in `wait`, if any.
    @inline(__always)
    func wakeWaiters() {
        if core.waiters > 0 { tocsin_lock_broadcast(lock) }
    }

    /// Runs `body` with the lock dropped (handlers, releasing closures whose
    /// captures may call back in), and takes it again.
    @inline(__always)
    func unlocked<Result>(_ body: () -> Result) -> Result {
        tocsin_lock_release(lock)
        defer { tocsin_lock_acquire(lock) }
        return body()
    }
}
