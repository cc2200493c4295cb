extension TimerEngine {
    /// The timer's state.
    public func state(of timer: TimerID) throws(TocsinError) -> TimerState {
        try core.state(of: timer)
    }

    /// Running time of the current run, exact to the nanosecond.
    public func elapsed(of timer: TimerID) throws(TocsinError) -> Duration {
        .nanoseconds(try core.elapsedNanoseconds(of: timer))
    }

    /// Countdown: time left (the full duration when idle, zero once finished).
    /// Stopwatch: nil.
    public func remaining(of timer: TimerID) throws(TocsinError) -> Duration? {
        try core.remainingNanoseconds(of: timer).map { .nanoseconds($0) }
    }

    /// Countdown: its duration. Stopwatch: nil.
    public func duration(of timer: TimerID) throws(TocsinError) -> Duration? {
        try core.durationNanoseconds(of: timer).map { .nanoseconds($0) }
    }

    /// The lengths of the current run's laps, oldest first.
    public func laps(of timer: TimerID) throws(TocsinError) -> [Duration] {
        try core.lapNanoseconds(of: timer).map { .nanoseconds($0) }
    }

    /// The engine's clock: the boot clock, or the manual time (from zero).
    public func now() throws(TocsinError) -> Duration {
        .nanoseconds(try core.nowNanoseconds())
    }

    /// How many timers the engine holds.
    public func timerCount() throws(TocsinError) -> Int {
        try core.timerCount()
    }

    /// Every timer of the engine, in creation order.
    ///
    /// - Complexity: O(n log n).
    public func timers() throws(TocsinError) -> [TimerID] {
        try core.timers()
    }
}
