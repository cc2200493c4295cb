import CTocsin

extension TimerEngine {
    /// Creates an idle countdown of `duration` (more than zero, at most 100 years).
    ///
    /// - Throws: `.invalidArgument` for a zero, negative or too long duration;
    ///   `.outOfMemory`; `.closed`.
    /// - Complexity: O(1) amortized.
    public func countdown(_ duration: Duration) throws(TocsinError) -> TimerID {
        guard let nanoseconds = Nanos.from(duration) else { throw .invalidArgument }
        return try core.countdown(nanoseconds: nanoseconds)
    }

    package func countdown(nanoseconds: Int64) throws(TocsinError) -> TimerID {
        try core.countdown(nanoseconds: nanoseconds)
    }

    /// Creates an idle stopwatch: it counts up and never finishes.
    ///
    /// - Complexity: O(1) amortized.
    public func stopwatch() throws(TocsinError) -> TimerID {
        try core.stopwatch()
    }

    /// Frees a timer in any state; its handle is unknown from now on and its
    /// undelivered events are dropped. Called from anywhere but the timer's
    /// own handler, it returns once no handler of the timer is running.
    ///
    /// - Complexity: O(1).
    public func free(_ timer: TimerID) throws(TocsinError) {
        let box = try core.withLockAndWaits { locked throws(TocsinError) in
            let box = try locked.access { core throws(TocsinError) in core.free(try core.slotIndex(of: timer)) }
            locked.waitWhileDelivering(timer.rawValue)
            return box
        }
        box?.release()  // outside the lock: the closure's captures may call back in
    }

    /// Sets the handler that receives the timer's events (nil: none). Events
    /// that fall while a timer has no handler are dropped. A handler already
    /// running may finish after this returns.
    public func setHandler(for timer: TimerID, _ handler: (@Sendable (TimerEvent) -> Void)?) throws(TocsinError) {
        let box = handler.map { Unmanaged.passRetained(HandlerBox($0)) }
        do {
            try core.installHandler(timer, callback: nil, context: box?.toOpaque(), isSwift: box != nil)
        } catch {
            box?.release()
            throw error
        }
    }

    /// Chooses the kinds of event the timer's handler gets (`.all` unless
    /// set). The others are not delivered to it, though observers still see
    /// every event; a STATE event that no handler or observer wants is never
    /// queued, so a host that needs only `.finish` pays for nothing else.
    /// Queued events are filtered when delivered, by the set current then.
    /// The set stays with the timer across runs and handler changes; it is
    /// not saved.
    ///
    /// - Throws: `.invalidArgument` for raw bits outside `.all`.
    public func setEventKinds(_ kinds: TimerEvent.Kinds, for timer: TimerID) throws(TocsinError) {
        try core.setEvents(kinds, for: timer)
    }

    /// The kinds of event the timer's handler gets.
    public func eventKinds(of timer: TimerID) throws(TocsinError) -> TimerEvent.Kinds {
        try core.events(for: timer)
    }

    /// Sets the tick interval (nil or zero: no ticks). Tick k falls due at
    /// k x interval of running time; one at or after a countdown's end is
    /// folded into the finish. On a started timer, the next tick is the first
    /// multiple of the new interval after its running time.
    ///
    /// - Complexity: O(log n).
    public func setTickInterval(_ interval: Duration?, for timer: TimerID) throws(TocsinError) {
        guard let nanoseconds = Nanos.from(interval ?? .zero) else { throw .invalidArgument }
        try core.setTickInterval(nanoseconds: nanoseconds, for: timer)
    }

    package func setTickInterval(nanoseconds interval: Int64, for timer: TimerID) throws(TocsinError) {
        try core.setTickInterval(nanoseconds: interval, for: timer)
    }

    /// Chooses what happens to ticks that are all due when the engine gets
    /// to them (after a stall, a suspend of the machine, a long `advance`):
    /// `.every` (the default) delivers each; `.coalesce` delivers one TICK
    /// for the latest, with `elapsed` that tick's nominal time and `missed`
    /// how many were skipped. Only ticks due before any other event are
    /// merged, so events still come in due-time order. Any state; kept
    /// across runs and saved with the timer.
    public func setTickPolicy(_ policy: TickPolicy, for timer: TimerID) throws(TocsinError) {
        try core.setTickPolicy(policy, for: timer)
    }

    /// The timer's tick policy.
    public func tickPolicy(of timer: TimerID) throws(TocsinError) -> TickPolicy {
        try core.tickPolicy(of: timer)
    }

    /// Lets the timer, and its ticks, be delivered up to `leeway` late, so
    /// that the engine fires it in the same wake-up as others: its events
    /// fall due at the first multiple of `leeway` on the boot clock at or
    /// after their deadline, so timers with the same leeway (or leeways
    /// that divide one another) due within one step wake the engine once.
    /// Never early; `lateness` still counts from the deadline. Zero (the
    /// default) keeps every event at its deadline. Any state; kept across
    /// runs and saved with the timer.
    ///
    /// - Throws: `.invalidArgument` for a negative leeway or one over a day.
    /// - Complexity: O(log n) on a running timer, O(1) otherwise.
    public func setLeeway(_ leeway: Duration, for timer: TimerID) throws(TocsinError) {
        guard let nanoseconds = Nanos.from(leeway) else { throw .invalidArgument }
        try core.setLeeway(nanoseconds: nanoseconds, for: timer)
    }

    package func setLeeway(nanoseconds leeway: Int64, for timer: TimerID) throws(TocsinError) {
        try core.setLeeway(nanoseconds: leeway, for: timer)
    }

    /// The timer's leeway (zero if none).
    public func leeway(of timer: TimerID) throws(TocsinError) -> Duration {
        .nanoseconds(try core.leeway(of: timer))
    }

    /// `TOCSIN_LEEWAY_MAX_SECONDS` in ns: a day.
    package static let maxLeeway: Int64 = 86_400 * Nanos.perSecond

    /// Sets the timer's label (nil or empty: none), at most 4096 bytes of UTF-8.
    public func setLabel(_ label: String?, for timer: TimerID) throws(TocsinError) {
        try core.setLabel(label, for: timer)
    }

    /// `TOCSIN_LABEL_MAX`.
    package static let maxLabelBytes = 4096

    /// The timer's label; empty if none.
    public func label(of timer: TimerID) throws(TocsinError) -> String {
        try core.label(of: timer)
    }
}
