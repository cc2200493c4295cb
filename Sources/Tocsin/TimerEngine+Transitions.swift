package import CTocsin

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

    /// Creates a countdown with a C callback for `events` and starts it, all
    /// under one lock: `tocsin_countdown_start`.
    package func startCountdown(
        nanoseconds: Int64, events: TimerEvent.Kinds, callback: tocsin_callback?, context: UnsafeMutableRawPointer?
    ) throws(TocsinError) -> TimerID {
        try core.startCountdown(nanoseconds: nanoseconds, events: events, callback: callback, context: context)
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
