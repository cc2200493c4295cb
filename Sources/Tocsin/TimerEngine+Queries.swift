extension TimerEngine {
    /// The timer's state.
    public func state(of timer: TimerID) throws(TocsinError) -> TimerState {
        try withTimer(timer) { _, slot in slot.pointee.state }
    }

    /// Running time of the current run, exact to the nanosecond.
    public func elapsed(of timer: TimerID) throws(TocsinError) -> Duration {
        .nanoseconds(try elapsedNanoseconds(of: timer))
    }

    package func elapsedNanoseconds(of timer: TimerID) throws(TocsinError) -> Int64 {
        try withTimer(timer) { _, slot in slot.pointee.runningTime(at: clockNow()) }
    }

    /// Countdown: time left (the full duration when idle, zero once finished).
    /// Stopwatch: nil.
    public func remaining(of timer: TimerID) throws(TocsinError) -> Duration? {
        try remainingNanoseconds(of: timer).map { .nanoseconds($0) }
    }

    package func remainingNanoseconds(of timer: TimerID) throws(TocsinError) -> Int64? {
        try withTimer(timer) { _, slot in slot.pointee.remaining(after: slot.pointee.runningTime(at: clockNow())) }
    }

    /// Countdown: its duration. Stopwatch: nil.
    public func duration(of timer: TimerID) throws(TocsinError) -> Duration? {
        try durationNanoseconds(of: timer).map { .nanoseconds($0) }
    }

    package func durationNanoseconds(of timer: TimerID) throws(TocsinError) -> Int64? {
        try withTimer(timer) { _, slot in slot.pointee.isStopwatch ? nil : slot.pointee.duration }
    }

    /// The lengths of the current run's laps, oldest first.
    public func laps(of timer: TimerID) throws(TocsinError) -> [Duration] {
        try lapNanoseconds(of: timer).map { .nanoseconds($0) }
    }

    package func lapNanoseconds(of timer: TimerID) throws(TocsinError) -> [Int64] {
        try withTimer(timer) { index, _ in laps[index]?.lengths ?? [] }
    }

    /// The engine's clock: the boot clock, or the manual time (from zero).
    public func now() throws(TocsinError) -> Duration {
        .nanoseconds(try nowNanoseconds())
    }

    package func nowNanoseconds() throws(TocsinError) -> Int64 {
        lock.lock()
        defer { lock.unlock() }
        guard !closed else { throw .closed }
        return clockNow()
    }

    /// How many timers the engine holds.
    public func timerCount() throws(TocsinError) -> Int {
        lock.lock()
        defer { lock.unlock() }
        guard !closed else { throw .closed }
        return slots.live
    }
}
