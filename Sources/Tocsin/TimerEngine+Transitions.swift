import CTocsin

extension TimerEngine {
    /// Starts an idle, finished or cancelled timer from its full duration:
    /// running time 0, laps cleared, ticks from 1.
    ///
    /// - Throws: `.wrongState` if running or suspended; `.outOfMemory`
    ///   (nothing changed) if the engine's tables cannot grow.
    /// - Complexity: O(log n) in the number of armed timers.
    public func start(_ timer: TimerID) throws(TocsinError) {
        try core.start(timer)
    }

    /// Holds a running timer's time exactly where it is.
    ///
    /// - Throws: `.wrongState` unless running; `.outOfMemory` (nothing
    ///   changed) if the event queue cannot grow.
    /// - Complexity: O(1) amortized.
    public func suspend(_ timer: TimerID) throws(TocsinError) {
        try core.suspend(timer)
    }

    /// Carries a suspended timer on from the time it held.
    ///
    /// - Throws: `.wrongState` unless suspended; `.outOfMemory` (nothing
    ///   changed) if the engine's tables cannot grow.
    /// - Complexity: O(log n).
    public func resume(_ timer: TimerID) throws(TocsinError) {
        try core.resume(timer)
    }

    /// Cancels a running or suspended timer. When this returns no tick or
    /// finish of the run is delivered: from another thread it waits for a
    /// running handler of the timer to return. The run's last event is the
    /// change to `.canceled`.
    ///
    /// - Throws: `.wrongState` unless running or suspended; `.outOfMemory`
    ///   (nothing changed) if the event queue cannot grow.
    /// - Complexity: O(1) amortized.
    public func cancel(_ timer: TimerID) throws(TocsinError) {
        try core.withLockAndWaits { locked throws(TocsinError) in
            try locked.access { core throws(TocsinError) in try core.cancel(try core.slotIndex(of: timer)) }
            locked.waitWhileDelivering(timer.rawValue)
        }
    }

    /// Lengthens (positive `delta`) or shortens a countdown for its current
    /// run; `remaining` and the finish move with it, to the nanosecond.
    ///
    /// - Idle or suspended: the new duration must stay above the elapsed
    ///   time (else `.invalidArgument`, nothing changed).
    /// - Running: at or below the elapsed time (but above zero), the
    ///   countdown finishes now (its FINISH, then STATE(finished), delivered
    ///   as usual, never inside this call); to end it now, cut it by its
    ///   `remaining`, since a new duration of zero or less is refused.
    /// - Finished: a positive `delta` runs it again with `delta` left, its
    ///   elapsed time carrying on from the old end ("one more minute");
    ///   a negative one is `.invalidArgument`.
    /// - Cancelled: `.wrongState`. A stopwatch, a zero `delta`, or a new
    ///   duration of zero or more than 100 years: `.invalidArgument`.
    ///
    /// Hosts learn of it by a STATE event with the timer's state (running
    /// for a finished countdown run again), its `remaining` the new time
    /// left; a change that finishes the countdown sends its FINISH instead.
    /// Ticks stay at k x interval of running time; one at the new end is
    /// folded into the finish. The change lasts for the run: starting the
    /// countdown again from finished or cancelled uses the duration it was
    /// created with. Saved and restored with the run.
    ///
    /// - Throws: `.outOfMemory` (nothing changed) if the engine's tables
    ///   cannot grow.
    /// - Complexity: O(log n).
    public func adjust(_ timer: TimerID, by delta: Duration) throws(TocsinError) {
        guard let nanoseconds = Nanos.from(signed: delta) else { throw .invalidArgument }
        try core.adjust(timer, byNanoseconds: nanoseconds)
    }

    package func adjust(_ timer: TimerID, byNanoseconds delta: Int64) throws(TocsinError) {
        try core.adjust(timer, byNanoseconds: delta)
    }

    /// Records a lap on a running or suspended timer of either kind and
    /// returns its length: running time since the previous lap (or the start).
    ///
    /// - Throws: `.wrongState` unless running or suspended.
    public func lap(_ timer: TimerID) throws(TocsinError) -> Duration {
        .nanoseconds(try core.lapNanoseconds(timer))
    }

    package func lapNanoseconds(_ timer: TimerID) throws(TocsinError) -> Int64 {
        try core.lapNanoseconds(timer)
    }
}
