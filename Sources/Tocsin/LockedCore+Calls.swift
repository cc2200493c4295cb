package import CTocsin

/// Every engine call that never waits and never calls a handler, on the
/// core alone. `TimerEngine`'s methods of the same names forward here (their
/// documentation is there); the C ABI calls these directly, without
/// touching the engine object's reference count. Each takes the lock once.
extension LockedCore {
    // MARK: - Timers

    package func countdown(nanoseconds: Int64) throws(TocsinError) -> TimerID {
        guard nanoseconds > 0, nanoseconds <= Nanos.max else { throw .invalidArgument }
        return try makeTimer(duration: nanoseconds)
    }

    package func stopwatch() throws(TocsinError) -> TimerID {
        try makeTimer(duration: 0)
    }

    @inline(__always)
    private func makeTimer(duration: Int64) throws(TocsinError) -> TimerID {
        try withLock { core throws(TocsinError) in
            let index = try core.newSlot(duration: duration)
            return TimerID(rawValue: core.slots.handle(of: index))
        }
    }

    package func setCallback(for timer: TimerID, _ callback: tocsin_callback?, context: UnsafeMutableRawPointer?) throws(TocsinError) {
        try installHandler(timer, callback: callback, context: callback == nil ? nil : context, isSwift: false)
    }

    /// Sets a C callback, or (`isSwift`) a retained `HandlerBox` as the
    /// context; releases the Swift handler it replaces after the lock.
    @inline(__always)
    func installHandler(
        _ timer: TimerID, callback: tocsin_callback?, context: UnsafeMutableRawPointer?, isSwift: Bool
    ) throws(TocsinError) {
        let previous = try withTimer(timer) { core, index in
            core.installHandler(index, callback: callback, context: context, isSwift: isSwift)
        }
        previous?.release()
    }

    package func setEvents(_ kinds: TimerEvent.Kinds, for timer: TimerID) throws(TocsinError) {
        guard TimerEvent.Kinds.all.isSuperset(of: kinds) else { throw .invalidArgument }
        try withTimer(timer) { core, index in core.setEvents(kinds, of: index) }
    }

    package func events(for timer: TimerID) throws(TocsinError) -> TimerEvent.Kinds {
        try withTimer(timer) { core, index in TimerEvent.Kinds.all.subtracting(core.slots[index].pointee.muted) }
    }

    package func setTickInterval(nanoseconds interval: Int64, for timer: TimerID) throws(TocsinError) {
        guard interval >= 0, interval <= Nanos.max else { throw .invalidArgument }
        try withTimer(timer) { core, index throws(TocsinError) in try core.setTickInterval(interval, of: index) }
    }

    package func setTickPolicy(_ policy: TickPolicy, for timer: TimerID) throws(TocsinError) {
        try withTimer(timer) { core, index in core.setTickPolicy(policy, of: index) }
    }

    package func tickPolicy(of timer: TimerID) throws(TocsinError) -> TickPolicy {
        try withTimer(timer) { core, index in
            core.slots[index].pointee.flags.contains(.coalescesTicks) ? .coalesce : .every
        }
    }

    package func setLeeway(nanoseconds leeway: Int64, for timer: TimerID) throws(TocsinError) {
        guard leeway >= 0, leeway <= TimerEngine.maxLeeway else { throw .invalidArgument }
        try withTimer(timer) { core, index throws(TocsinError) in try core.setLeeway(leeway, of: index) }
    }

    package func leeway(of timer: TimerID) throws(TocsinError) -> Int64 {
        try withTimer(timer) { core, index in core.leeway(of: index) }
    }

    package func setLabel(_ label: String?, for timer: TimerID) throws(TocsinError) {
        let label = label ?? ""
        guard label.utf8.count <= TimerEngine.maxLabelBytes else { throw .invalidArgument }
        try withTimer(timer) { core, index in core.setLabel(label, of: index) }
    }

    package func label(of timer: TimerID) throws(TocsinError) -> String {
        try withTimer(timer) { core, index in core.labels[index] ?? "" }
    }

    // MARK: - Clocks and alarms

    package func setClock(_ clock: TimerClock, for timer: TimerID) throws(TocsinError) {
        try withTimer(timer) { core, index throws(TocsinError) in try core.setClock(clock, of: index) }
    }

    package func clock(of timer: TimerID) throws(TocsinError) -> TimerClock {
        try withTimer(timer) { core, index in core.clock(of: index) }
    }

    package func alarm(atNanoseconds time: Int64) throws(TocsinError) -> TimerID {
        guard time >= 0, time <= Nanos.max else { throw .invalidArgument }
        return try withLock { core throws(TocsinError) in
            // The slot first: `core.slots.handle(of: try core.newAlarm(…))`
            // read the table before the call grew it (a stale handle past
            // the first 1,024 timers).
            let index = try core.newAlarm(at: time)
            return TimerID(rawValue: core.slots.handle(of: index))
        }
    }

    package func calendar(_ spec: CalendarSpec) throws(TocsinError) -> TimerID {
        try withLock { core throws(TocsinError) in
            let index = try core.newCalendar(spec)  // first: see `alarm`
            return TimerID(rawValue: core.slots.handle(of: index))
        }
    }

    package func setWake(_ on: Bool, for timer: TimerID) throws(TocsinError) {
        try withTimer(timer) { core, index throws(TocsinError) in try core.setWake(on, of: index) }
    }

    package func wakes(_ timer: TimerID) throws(TocsinError) -> Bool {
        try withTimer(timer) { core, index in core.wakes(index) }
    }

    /// Nil if this engine can wake the machine, else why not.
    package func wakeFailureReason() throws(TocsinError) -> String? {
        try withOpenCore { core in core.openWakeTimers() ? nil : core.wakeFailure?.reason }
    }

    /// True while the timer holds a FINISH from its restore (see `load`)
    /// that no handler has taken yet.
    package func hasHeldFinish(_ timer: TimerID) throws(TocsinError) -> Bool {
        try withTimer(timer) { core, index in core.heldFinishes[index] != nil }
    }

    /// A calendar alarm's spec; nil for another kind of timer.
    package func calendarSpec(of timer: TimerID) throws(TocsinError) -> CalendarSpec? {
        try withTimer(timer) { core, index in core.isCalendar(index) ? core.calendars[index]?.spec : nil }
    }

    /// The alarm's wall-clock time in Unix ns; nil for another kind of timer.
    package func alarmTime(of timer: TimerID) throws(TocsinError) -> Int64? {
        try withTimer(timer) { core, index in core.alarmTimes[index] }
    }

    package func wallClockNanoseconds() throws(TocsinError) -> Int64 {
        try withOpenCore { core in core.wallClock() }
    }

    // MARK: - Transitions

    package func start(_ timer: TimerID) throws(TocsinError) {
        let realNow = clockBeforeLock()
        try withTimer(timer) { core, index throws(TocsinError) in
            try core.start(index, at: realNow ?? core.manualNow)
        }
    }

    package func startCountdown(
        nanoseconds: Int64, events: TimerEvent.Kinds, callback: tocsin_callback?, context: UnsafeMutableRawPointer?
    ) throws(TocsinError) -> TimerID {
        guard nanoseconds > 0, nanoseconds <= Nanos.max, TimerEvent.Kinds.all.isSuperset(of: events) else {
            throw .invalidArgument
        }
        let realNow = clockBeforeLock()
        return try withLock { core throws(TocsinError) in
            try core.startCountdown(
                nanoseconds: nanoseconds, at: realNow ?? core.manualNow, events: events, callback: callback,
                context: context)
        }
    }

    package func suspend(_ timer: TimerID) throws(TocsinError) {
        try withTimer(timer) { core, index throws(TocsinError) in try core.suspend(index) }
    }

    package func resume(_ timer: TimerID) throws(TocsinError) {
        let realNow = clockBeforeLock()
        try withTimer(timer) { core, index throws(TocsinError) in
            try core.resume(index, at: realNow ?? core.manualNow)
        }
    }

    package func adjust(_ timer: TimerID, byNanoseconds delta: Int64) throws(TocsinError) {
        try withTimer(timer) { core, index throws(TocsinError) in try core.adjust(index, by: delta) }
    }

    package func skipRings(_ timer: TimerID, count: UInt64) throws(TocsinError) {
        try withTimer(timer) { core, index throws(TocsinError) in try core.skipRings(index, count: count) }
    }

    package func skipRings(_ timer: TimerID, untilNanoseconds time: Int64) throws(TocsinError) {
        try withTimer(timer) { core, index throws(TocsinError) in try core.skipRings(index, until: time) }
    }

    package func clearSkip(_ timer: TimerID) throws(TocsinError) {
        try withTimer(timer) { core, index throws(TocsinError) in try core.clearSkip(index) }
    }

    /// Nil for a timer that skips no ring (any kind but a calendar alarm).
    package func skippedUntil(_ timer: TimerID) throws(TocsinError) -> Int64? {
        try withTimer(timer) { core, index in core.skippedUntil(index) }
    }

    package func lapNanoseconds(_ timer: TimerID) throws(TocsinError) -> Int64 {
        try withTimer(timer) { core, index throws(TocsinError) in try core.lap(index) }
    }
}
