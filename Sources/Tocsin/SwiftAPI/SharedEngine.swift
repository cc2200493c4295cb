/// An engine made on first use and kept: the one every `BootClock`,
/// `AwakeClock` and `WallClock` sleep of the process shares. A failed start
/// (no file descriptor left, EMFILE) is not kept: the next use tries again.
package final class SharedEngine: Sendable {
    private let engine = Guarded<TimerEngine?>(nil)
    private let make: @Sendable () throws(TocsinError) -> TimerEngine

    package init(_ make: @escaping @Sendable () throws(TocsinError) -> TimerEngine) {
        self.make = make
    }

    /// The engine, made now if there is none yet.
    ///
    /// - Throws: what making it threw (`.io`, `.outOfMemory`).
    package func get() throws(TocsinError) -> TimerEngine {
        try engine.withLock { engine throws(TocsinError) in
            if let engine { return engine }
            let made = try make()
            engine = made
            return made
        }
    }
}
