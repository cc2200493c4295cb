import TocsinBase

/// A value that many threads share, behind a `TocsinLock`: what
/// `Synchronization.Mutex` is, but on the engine's own lock, whose atomics
/// ThreadSanitizer sees (it does not see `Mutex`'s lock on Linux, and
/// reported the state it guards in `SleeperCount` as racing).
///
/// `@unchecked Sendable`: `value` is touched only inside `withLock`.
final class Guarded<Value>: @unchecked Sendable {
    private let lock = TocsinLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` on the value with the lock held.
    func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        try lock.withLock { () throws(Failure) -> Result in try body(&value) }
    }
}
