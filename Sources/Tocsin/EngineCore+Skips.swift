import TocsinBase

/// Skipped rings of calendar alarms: the alarm stays, and each occurrence
/// before its `skipUntil` is passed over as if the spec had none there: no
/// FINISH, not counted in `missed`, no wake. The alarm's time is always its
/// coming ring, past the skipped ones, so what aims, arms and wakes from
/// `alarmTimes` (`+Alarms`, `+Calendar`, `+Wake`) needs nothing else, and a
/// wall-clock change or a restore keeps the skip: it is a wall time.
extension EngineCore {
    /// The most rings one call skips by count (each is a step of the
    /// spec's search, with the engine's lock held).
    static var maxSkippedRings: UInt64 { CalendarAlarm.missedCountLimit }

    /// Skips the next `count` rings of calendar alarm `index`, counted from
    /// its coming ring (already skipped ones are not counted again).
    ///
    /// - Throws: `.invalidArgument` for another kind of timer or a count
    ///   of 0 or over `maxSkippedRings`; `.outOfRange` if no ring would be
    ///   left after them; `.wrongState` for one that finished.
    mutating func skipRings(_ index: Int32, count: UInt64) throws(TocsinError) {
        guard isCalendar(index), let schedule = calendars[index], (1...Self.maxSkippedRings).contains(count) else {
            throw .invalidArgument
        }
        guard var ring = comingRing(index) else { throw .outOfRange }
        for _ in 0..<count {
            guard let next = schedule.unskippedOccurrence(after: ring) else { throw .outOfRange }
            ring = next
        }
        try moveRing(index, to: ring, skippingUntil: ring)
    }

    /// Skips every ring of calendar alarm `index` before the wall time
    /// `time` (Unix ns), replacing an earlier skip.
    ///
    /// - Throws: `.invalidArgument` for another kind of timer or a time not
    ///   after the wall clock now; `.outOfRange` if no ring is left after
    ///   it; `.wrongState` for one that finished.
    mutating func skipRings(_ index: Int32, until time: Int64) throws(TocsinError) {
        guard isCalendar(index), let schedule = calendars[index] else { throw .invalidArgument }
        let wall = wallClock()
        guard time > wall, time <= Nanos.max else { throw .invalidArgument }
        guard let ring = schedule.unskippedOccurrence(after: max(wall, time - 1)) else { throw .outOfRange }
        try moveRing(index, to: ring, skippingUntil: time)
    }

    /// Undoes a skip: the alarm aims at its first occurrence after now
    /// again. Without a skip, nothing changes.
    ///
    /// - Throws: `.invalidArgument` for another kind of timer; `.wrongState`
    ///   for one that finished.
    mutating func clearSkip(_ index: Int32) throws(TocsinError) {
        guard isCalendar(index), let schedule = calendars[index] else { throw .invalidArgument }
        guard schedule.skipUntil != nil else { return }
        guard let ring = schedule.unskippedOccurrence(after: wallClock()) else { throw .outOfRange }
        try moveRing(index, to: ring, skippingUntil: nil)
    }

    /// Until when calendar alarm `index`'s rings are skipped (Unix ns); nil
    /// if none is (a skip whose time has passed is none).
    func skippedUntil(_ index: Int32) -> Int64? {
        var wall: Int64?
        return skippedUntil(index, wall: &wall)
    }

    /// As `skippedUntil(_:)`, the wall clock read once (`wall`) and kept
    /// for the next timer of a listing.
    func skippedUntil(_ index: Int32, wall: inout Int64?) -> Int64? {
        guard isCalendar(index), let until = calendars[index]?.skipUntil else { return nil }
        if wall == nil { wall = wallClock() }
        return until > wall ?? 0 ? until : nil
    }

    /// The ring calendar alarm `index` comes to next: its time, or, when
    /// that is behind the wall clock (idle or cancelled, or suspended
    /// across it), the first occurrence after now.
    private func comingRing(_ index: Int32) -> Int64? {
        guard let time = alarmTimes[index], let schedule = calendars[index] else { return nil }
        let wall = wallClock()
        return time > wall ? time : schedule.occurrence(after: wall)
    }

    /// Aims calendar alarm `index` at `ring` with the skip `until`, as
    /// `adjustAlarm` moves an alarm (a STATE event unless cancelled); all or
    /// nothing.
    private mutating func moveRing(_ index: Int32, to ring: Int64, skippingUntil until: Int64?) throws(TocsinError) {
        guard let time = alarmTimes[index], let schedule = calendars[index] else { return }
        let state = slots[index].pointee.state
        guard state != .finished else { throw .wrongState }
        if state != .canceled { try makeRoomForEvent() }
        let before = schedule.skipUntil
        let clocks = wallAndBootClocks()
        let lead = clocks.wall.subtractingSaturated(clocks.boot)
        schedule.skipUntil = until
        switch state {
        case .running:
            do throws(TocsinError) {
                try rearm(index) { core throws(TocsinError) in
                    core.alarmTimes[index] = ring
                    core.aim(index, wallLead: lead, at: clocks.boot)
                    return try core.pushDeadline(index)
                }
            } catch {
                alarmTimes[index] = time
                schedule.skipUntil = before
                throw error
            }
            enqueueState(of: index, at: clocks.boot)
        case .idle, .suspended:
            alarmTimes[index] = ring
            aim(index, wallLead: lead, at: clocks.boot)
            enqueueState(of: index, at: clocks.boot)
        case .canceled, .finished:
            alarmTimes[index] = ring
        }
        if !wakeTimers.isEmpty { wakeDirty = true }
        rearmWallTimer()
    }
}
