extension TimerEngine {
    /// Puts an idle timer on `clock`: `.boot` (the default) counts real
    /// time, suspends of the machine included; `.awake` counts only time the
    /// machine is awake, so a suspend pauses it. `elapsed` and `remaining`
    /// are on the timer's clock; `now()` stays the boot clock. Kept across
    /// runs and saved with the timer. No kernel timer per timer either way.
    ///
    /// - Throws: `.wrongState` unless idle; `.invalidArgument` for `.awake`
    ///   on an alarm (an alarm follows the wall clock).
    public func setClock(_ clock: TimerClock, for timer: TimerID) throws(TocsinError) {
        try core.setClock(clock, for: timer)
    }

    /// The clock the timer counts.
    public func clock(of timer: TimerID) throws(TocsinError) -> TimerClock {
        try core.clock(of: timer)
    }

    /// Creates an idle alarm that finishes when the wall clock reaches
    /// `unixTime` (time since 1970-01-01 00:00 UTC); `start` arms it. It
    /// follows every change of the wall clock while armed: set forward past
    /// its time, it finishes at once (late by as much as the clock passed
    /// it); set back, it rings later. A time already past when it starts:
    /// it finishes at once.
    ///
    /// An alarm is a countdown whose time left is always the time until its
    /// wall time: `remaining` = that time (0 once past), `elapsed` = how long
    /// it has run on the boot clock (a clock change does not move it),
    /// `duration` = the two together. Suspended, it does not ring, and its
    /// time left keeps shrinking; resumed, it rings at its time, or at once
    /// if that passed. Ticks fall at k x interval of running time, as a
    /// countdown's. Started again after it finished or was cancelled, it
    /// aims at its time again (so finishes at once if that has passed).
    /// `adjust` moves its time (for good, unlike a countdown's change);
    /// from finished, a positive delta rings it again that long from now.
    ///
    /// - Throws: `.invalidArgument` for a time before 1970 or more than
    ///   100 years after it (`TOCSIN_MAX_SECONDS`).
    /// - Complexity: O(1) amortized; each alarm adds O(alarms) work when the
    ///   wall clock is set.
    public func alarm(at unixTime: Duration) throws(TocsinError) -> TimerID {
        guard let nanoseconds = Nanos.from(unixTime) else { throw .invalidArgument }
        return try core.alarm(atNanoseconds: nanoseconds)
    }

    package func alarm(atNanoseconds time: Int64) throws(TocsinError) -> TimerID {
        try core.alarm(atNanoseconds: time)
    }

    /// Makes a countdown, alarm or calendar alarm wake a suspended machine
    /// `WakeTimers.lead` (2 minutes) before it is due, where this process
    /// may (`wakeFailureReason`); it rings at its own time either way.
    ///
    /// - Throws: `.invalidArgument` for a stopwatch or an AWAKE timer.
    public func setWake(_ wake: Bool, for timer: TimerID) throws(TocsinError) {
        try core.setWake(wake, for: timer)
    }

    /// True if the timer wakes a suspended machine.
    public func wakes(_ timer: TimerID) throws(TocsinError) -> Bool {
        try core.wakes(timer)
    }

    /// Nil if this engine can arm timers that wake the machine, else why
    /// not (no `CAP_WAKE_ALARM`, no wake-capable clock, a manual clock).
    public func wakeFailureReason() throws(TocsinError) -> String? {
        try core.wakeFailureReason()
    }

    /// True while the timer holds the FINISH it was restored with (it ran
    /// out, or a calendar alarm rang, while the program was away) and no
    /// handler has taken it yet.
    package func hasHeldFinish(_ timer: TimerID) throws(TocsinError) -> Bool {
        try core.hasHeldFinish(timer)
    }

    /// A calendar alarm's spec; nil for any other timer.
    package func calendarSpec(of timer: TimerID) throws(TocsinError) -> CalendarSpec? {
        try core.calendarSpec(of: timer)
    }

    /// An alarm's wall-clock time (since 1970-01-01 00:00 UTC); a calendar
    /// alarm's coming occurrence; nil for a countdown or stopwatch.
    public func alarmTime(of timer: TimerID) throws(TocsinError) -> Duration? {
        try core.alarmTime(of: timer).map { .nanoseconds($0) }
    }

    /// The wall clock alarms follow: `CLOCK_REALTIME` as time since
    /// 1970-01-01 00:00 UTC; on a manual clock the simulated one, which
    /// reads 0 until `setWallClock`.
    public func wallClock() throws(TocsinError) -> Duration {
        .nanoseconds(try core.wallClockNanoseconds())
    }
}
