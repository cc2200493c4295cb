import TocsinBase

/// A value that many threads share, behind a `TocsinLock`: what
/// `Synchronization.Mutex` is, but on the engine's own lock, whose C11
/// atomics the ThreadSanitizer build instruments. (With `Mutex`, a
/// fresh-clone run once reported `SleeperCount`'s guarded state as a
/// Swift access race: on Linux TSan evidently does not see that lock.)
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
