import TocsinBase

/// Calendar alarms: alarms (see `+Clocks`) whose time moves on to the
/// spec's next occurrence each time it comes, instead of finishing.
///
/// The coming occurrence is the alarm's time in `alarmTimes`, so a
/// calendar alarm is aimed, armed on the wall timer and checked for
/// earliness exactly as a one-shot alarm. What differs:
/// - starting it aims at the first occurrence after now (`aimAtNextOccurrence`);
/// - its finish falls due, and `stepCalendar` turns it into a FINISH that
///   leaves it RUNNING towards the next occurrence after the wall clock
///   now, counting the occurrences it passed over as `missed` (a late
///   ring after a suspend or a wall-clock jump): a clock set back never
///   brings an occurrence back, since the next one is after the last rung;
/// - idle or cancelled, its time follows now, so that what it shows is
///   what a start would aim at.
/// A spec with no occurrence left finishes it like a one-shot alarm.
extension EngineCore {
    /// A new idle calendar alarm, aimed at the first occurrence after now.
    ///
    /// - Throws: `.outOfRange` if the spec has none within 100 years;
    ///   `.invalidArgument` if its zone is no longer installed.
    mutating func newCalendar(_ spec: CalendarSpec) throws(TocsinError) -> Int32 {
        let schedule = CalendarAlarm(spec: spec)
        let clocks = wallAndBootClocks()
        guard let first = schedule.occurrence(after: clocks.wall) else {
            throw spec.zoneRules() == nil ? .invalidArgument : .outOfRange
        }
        let index = try newSlot(duration: 1)
        alarmTimes[index] = first
        calendars[index] = schedule
        slots[index].pointee.flags.insert(.extras)
        aim(index, wallLead: clocks.wall.subtractingSaturated(clocks.boot), at: clocks.boot)
        return index
    }

    /// True if timer `index` is a calendar alarm.
    @inline(__always)
    func isCalendar(_ index: Int32) -> Bool {
        !calendars.isEmpty && slots[index].pointee.flags.contains(.extras) && calendars[index] != nil
    }

    /// Before a start: a calendar alarm aims at its first occurrence after
    /// the wall clock now (the caller then aims the countdown at it).
    ///
    /// - Throws: `.outOfRange` if none is left; nothing changed then.
    mutating func aimAtNextOccurrence(_ index: Int32) throws(TocsinError) {
        guard isCalendar(index), let schedule = calendars[index] else { return }
        guard let next = schedule.occurrence(after: wallClock()) else { throw .outOfRange }
        alarmTimes[index] = next
    }

    /// An idle or cancelled calendar alarm whose time has come aims at the
    /// next occurrence after `wall` (Unix ns), so its time left is never
    /// negative; none left, it keeps its time.
    mutating func followOccurrences(_ index: Int32, wall: Int64) {
        guard let time = alarmTimes[index], time <= wall, let schedule = calendars[index],
              let next = schedule.occurrence(after: wall) else { return }
        alarmTimes[index] = next
    }

    /// The FINISH of running calendar alarm `index`, whose occurrence fell
    /// due at `due` and fires at `firedAt` (the heap's top; later with a
    /// leeway): it moves on to the first occurrence
    /// after the wall clock now, re-timing its heap entry, and stays
    /// RUNNING. Nil if no occurrence is left: the caller finishes it.
    mutating func stepCalendar(_ index: Int32, due: Int64, firedAt: Int64) -> EngineEvent? {
        guard let schedule = calendars[index], let time = alarmTimes[index] else { return nil }
        let clocks = wallAndBootClocks()
        // A manual clock being advanced reads the time the event fires at.
        let now = max(clocks.boot, firedAt)
        let wall = clocks.wall.addingSaturated(now - clocks.boot)
        let passed = schedule.occurrences(after: time, through: max(time, wall))
        guard let next = passed.next else { return nil }
        alarmTimes[index] = next
        aim(index, wallLead: wall.subtractingSaturated(now), at: now)
        retimeTop(index)
        let slot = slots[index].pointee
        let ran = slot.runningTime(at: now)
        return EngineEvent(
            kind: .finish, state: .running, handle: slots.handle(of: index), elapsed: ran,
            remaining: slot.duration - ran, tick: 0, due: due, missed: passed.skipped)
    }

    /// On restore: a running calendar alarm whose occurrence passed while
    /// the program was away moves on to the next one after `wall`, and
    /// holds one FINISH for the last occurrence passed (`heldFinishes`,
    /// due at `now` less how long ago that was) with the ones before it as
    /// `missed`. False if no occurrence is left (it is then restored as a
    /// one-shot alarm that rang).
    mutating func restoreOccurrencesAway(_ index: Int32, wall: Int64, now: Int64) -> Bool {
        guard let schedule = calendars[index], let time = alarmTimes[index] else { return false }
        let passed = schedule.occurrences(after: time, through: wall)
        guard let next = passed.next else { return false }
        alarmTimes[index] = next
        calendars[index]?.heldMissed = passed.skipped
        heldFinishes[index] = now - (wall - passed.last)
        return true
    }

    /// A restored calendar alarm's held FINISH, once its handler wants it:
    /// alone (the alarm is still running: no STATE follows).
    mutating func queueHeldOccurrence(_ index: Int32, due: Int64) {
        let elapsed = slots[index].pointee.runningTime(at: clockNow())
        pending.append(PendingEvent(of: index, in: slots, state: .running, time: due, elapsed: elapsed, isFinish: true))
        signalQueuedEvents(since: due)
    }

    /// The `missed` count of a held FINISH being delivered, taken once.
    mutating func takeHeldMissed(_ index: Int32) -> UInt64 {
        guard isCalendar(index), let missed = calendars[index]?.heldMissed, missed > 0 else { return 0 }
        calendars[index]?.heldMissed = 0
        return missed
    }
}
