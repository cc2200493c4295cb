/// Leeway: timers that may fire late share wake-ups.
///
/// A timer with a leeway is keyed in the heap by its deadline rounded up to
/// the next multiple of its leeway on the engine's clock (a grid that every
/// engine on the machine shares, since the boot clock is the machine's). So
/// it is never early, at most the leeway late, and timers with the same
/// leeway, or leeways that divide one another (0.25 s, 0.5 s, 1 s), due
/// within one grid step fall due at the same instant: one wake-up. The
/// event's lateness is still measured from its own deadline (`dueTime`).
/// A leeway of 0 is no entry in `leeways`: the timer is keyed exactly as
/// before, and the hot path pays one flag test.
extension EngineCore {
    /// Sets timer `index`'s leeway in ns (0: none); a running timer is
    /// re-pushed under its new key.
    mutating func setLeeway(_ leeway: Int64, of index: Int32) throws(TocsinError) {
        guard slots[index].pointee.state == .running else { return applyLeeway(leeway, of: index) }
        try rearm(index) { core throws(TocsinError) in
            core.applyLeeway(leeway, of: index)
            return try core.pushDeadline(index)
        }
    }

    private mutating func applyLeeway(_ leeway: Int64, of index: Int32) {
        if leeway == 0 {
            leeways[index] = nil
        } else {
            leeways[index] = leeway
            slots[index].pointee.flags.insert(.extras)
        }
    }

    /// Timer `index`'s leeway in ns; 0 if none.
    func leeway(of index: Int32) -> Int64 {
        guard !leeways.isEmpty, slots[index].pointee.flags.contains(.extras) else { return 0 }
        return leeways[index] ?? 0
    }

    /// The heap key for a deadline of timer `index`: the deadline itself,
    /// or with a leeway the first multiple of it at or after the deadline.
    @inline(__always)
    func firingTime(_ deadline: Int64, of index: Int32) -> Int64 {
        guard !leeways.isEmpty, slots[index].pointee.flags.contains(.extras), let leeway = leeways[index] else {
            return deadline
        }
        return Self.roundedUp(deadline, toMultipleOf: leeway)
    }

    /// `time` rounded up to a multiple of `step` (> 0), saturating.
    static func roundedUp(_ time: Int64, toMultipleOf step: Int64) -> Int64 {
        var remainder = time % step
        if remainder < 0 { remainder += step }
        return remainder == 0 ? time : time.addingSaturated(step - remainder)
    }

    /// When the heap's top (timer `index`, its event at `runningTime`) fell
    /// due: its key, or with a leeway the deadline the key was rounded up
    /// from, so that lateness counts from the deadline.
    @inline(__always)
    func dueTime(of top: HeapEntry, runningTime: Int64) -> Int64 {
        let index = top.slotIndex
        guard !leeways.isEmpty, slots[index].pointee.flags.contains(.extras), leeways[index] != nil else {
            return top.deadline
        }
        return min(top.deadline, slots[index].pointee.deadline(forRunningTime: runningTime))
    }
}
