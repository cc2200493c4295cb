extension TimerEngine {
    /// The timer's state.
    public func state(of timer: TimerID) throws(TocsinError) -> TimerState {
        try withTimer(timer) { core, index in core.slots[index].pointee.state }
    }

    /// Running time of the current run, exact to the nanosecond.
    public func elapsed(of timer: TimerID) throws(TocsinError) -> Duration {
        .nanoseconds(try elapsedNanoseconds(of: timer))
    }

    package func elapsedNanoseconds(of timer: TimerID) throws(TocsinError) -> Int64 {
        try withTimer(timer) { core, index in core.slots[index].pointee.runningTime(at: core.clockNow()) }
    }

    /// Countdown: time left (the full duration when idle, zero once finished).
    /// Stopwatch: nil.
    public func remaining(of timer: TimerID) throws(TocsinError) -> Duration? {
        try remainingNanoseconds(of: timer).map { .nanoseconds($0) }
    }

    package func remainingNanoseconds(of timer: TimerID) throws(TocsinError) -> Int64? {
        try withTimer(timer) { core, index in
            let slot = core.slots[index].pointee
            return slot.remaining(after: slot.runningTime(at: core.clockNow()))
        }
    }

    /// Countdown: its duration. Stopwatch: nil.
    public func duration(of timer: TimerID) throws(TocsinError) -> Duration? {
        try durationNanoseconds(of: timer).map { .nanoseconds($0) }
    }

    package func durationNanoseconds(of timer: TimerID) throws(TocsinError) -> Int64? {
        try withTimer(timer) { core, index in
            let slot = core.slots[index].pointee
            return slot.isStopwatch ? nil : slot.duration
        }
    }

    /// The lengths of the current run's laps, oldest first.
    public func laps(of timer: TimerID) throws(TocsinError) -> [Duration] {
        try lapNanoseconds(of: timer).map { .nanoseconds($0) }
    }

    package func lapNanoseconds(of timer: TimerID) throws(TocsinError) -> [Int64] {
        try withTimer(timer) { core, index in core.laps[index]?.lengths ?? [] }
    }

    /// The engine's clock: the boot clock, or the manual time (from zero).
    public func now() throws(TocsinError) -> Duration {
        .nanoseconds(try nowNanoseconds())
    }

    package func nowNanoseconds() throws(TocsinError) -> Int64 {
        try withOpenCore { core in core.clockNow() }
    }

    /// How many timers the engine holds.
    public func timerCount() throws(TocsinError) -> Int {
        try withOpenCore { core in core.slots.live }
    }

    /// Every timer of the engine, in creation order.
    ///
    /// - Complexity: O(n log n).
    public func timers() throws(TocsinError) -> [TimerID] {
        try withOpenCore { core in
            core.liveIndicesInCreationOrder().map { TimerID(rawValue: core.slots.handle(of: $0)) }
        }
    }

    /// Runs `body` with the lock held, unless the engine is closed.
    func withOpenCore<Result>(_ body: (inout EngineCore) throws(TocsinError) -> Result) throws(TocsinError) -> Result {
        try core.withLock { locked throws(TocsinError) in
            guard !locked.core.closed else { throw .closed }
            return try body(&locked.core)
        }
    }
}
