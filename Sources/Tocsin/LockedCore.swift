import TocsinBase

/// The engine's core behind its lock. `withLock` is the only way in, and
/// what it hands the body, a `Locked`, is the proof that the lock is held:
/// every function that needs the lock takes `inout EngineCore` (reached
/// through `Locked.core`) or a `Locked`, so "under the lock" is a fact of the
/// types, not a comment.
///
/// The core itself never waits and never drops the lock. Waiting for a
/// running handler and calling handlers with the lock dropped happen here,
/// on `Locked`, between accesses to the core, so the compiler keeps nothing
/// of the core in registers across them.
///
/// `@unchecked Sendable`: the core is reached only with `lock` held.
final class LockedCore: @unchecked Sendable {
    private let lock = TocsinLock()
    /// Allocated once, never moved; a pointer rather than a stored property,
    /// so accesses need no exclusivity bookkeeping.
    private let storage: UnsafeMutablePointer<EngineCore>

    init(_ core: consuming EngineCore) {
        storage = .allocate(capacity: 1)
        storage.initialize(to: core)
    }

    deinit {
        storage.deinitialize(count: 1)
        storage.deallocate()
    }

    /// Runs `body` with the lock held.
    @inline(__always)
    func withLock<Result, Failure: Error>(
        _ body: (borrowing Locked) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(Locked(storage: storage, lock: lock))
    }

    /// The core with no lock: only for `deinit`, when no other reference is left.
    var unguardedCore: UnsafeMutablePointer<EngineCore> { storage }
}

/// The engine's lock, held for as long as this exists (the body of
/// `LockedCore.withLock`, which alone makes one).
struct Locked: ~Copyable {
    private let storage: UnsafeMutablePointer<EngineCore>
    private unowned(unsafe) let lock: TocsinLock

    fileprivate init(storage: UnsafeMutablePointer<EngineCore>, lock: TocsinLock) {
        self.storage = storage
        self.lock = lock
    }

    /// The lock-guarded tables. Each use is a fresh access: after `wait` or
    /// `unlocked` it reads what other threads changed meanwhile.
    var core: EngineCore {
        @inline(__always) unsafeAddress { UnsafePointer(storage) }
        @inline(__always) nonmutating unsafeMutableAddress { storage }
    }

    /// Sleeps until a `broadcast`, with the lock dropped meanwhile. May
    /// return without one: callers re-check their condition in a loop.
    func wait() {
        core.waiters += 1
        lock.wait()
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
        if core.waiters > 0 { lock.broadcast() }
    }

    /// Runs `body` with the lock dropped (handlers, releasing closures whose
    /// captures may call back in), and takes it again.
    @inline(__always)
    func unlocked<Result>(_ body: () -> Result) -> Result {
        lock.unlock()
        defer { lock.lock() }
        return body()
    }
}
