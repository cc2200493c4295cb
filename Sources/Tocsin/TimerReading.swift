import TocsinBase

/// What a listing shows of one timer, read with many others under one lock
/// and one reading of the clock (`TimerEngine.readings(of:)`): the timer
/// service's `List` of 10,000 timers took ten engine calls per timer
/// before.
package struct TimerReading: Sendable {
    package var state: TimerState
    /// Running time of the current run, ns.
    package var elapsed: Int64
    /// Countdown: ns left (an idle or suspended alarm: until its time);
    /// nil for a stopwatch.
    package var remaining: Int64?
    /// Countdown: its duration; nil for a stopwatch.
    package var duration: Int64?
    package var label: String
    package var clock: TimerClock
    package var laps: [Int64]
    package var wakes: Bool
    /// An alarm's wall-clock time (a calendar alarm's coming occurrence), Unix ns.
    package var alarmTime: Int64?
    package var calendar: CalendarSpec?
    /// A calendar alarm's rings are skipped until this wall time (Unix ns);
    /// nil: none are.
    package var skippedUntil: Int64?
}

extension EngineCore {
    /// Countdown: the time left after `elapsed`; an idle or suspended
    /// alarm: the time until its wall time (`wall`, read once and kept for
    /// the next timer). Nil for a stopwatch.
    func remaining(of index: Int32, elapsed: Int64, wall: inout Int64?) -> Int64? {
        let slot = slots[index].pointee
        if !alarmTimes.isEmpty, let time = alarmTimes[index], slot.state == .idle || slot.state == .suspended {
            if wall == nil { wall = wallClock() }
            return max(0, time - (wall ?? 0))  // its duration is at least 1 ns
        }
        return slot.remaining(after: elapsed)
    }
}

extension LockedCore {
    package func readings(of timers: [TimerID]) throws(TocsinError) -> [TimerReading?] {
        try withOpenCore { core in
            var wall: Int64?
            let now = core.clockNow()
            return timers.map { timer in
                guard let index = core.slots.index(of: timer.rawValue) else { return nil }
                core.catchUpClocks(of: index)
                defer { core.rearmWakeIfWakes(index) }  // as every call on a timer: its deadline may have moved
                let slot = core.slots[index].pointee
                let elapsed = slot.runningTime(at: now)
                let remaining = core.remaining(of: index, elapsed: elapsed, wall: &wall)
                let alarmTime = core.alarmTimes.isEmpty ? nil : core.alarmTimes[index]
                let extras = slot.flags.contains(.extras)
                return TimerReading(
                    state: slot.state, elapsed: elapsed, remaining: remaining, duration: slot.isStopwatch ? nil : slot.duration,
                    label: extras ? core.labels[index] ?? "" : "", clock: core.clock(of: index),
                    laps: extras ? core.laps[index]?.lengths ?? [] : [], wakes: core.wakes(index), alarmTime: alarmTime,
                    calendar: core.isCalendar(index) ? core.calendars[index]?.spec : nil,
                    skippedUntil: core.skippedUntil(index, wall: &wall))
            }
        }
    }
}

extension TimerEngine {
    /// The readings of `timers` (nil for one that is not this engine's),
    /// taken together: one lock, one reading of the clock. O(n).
    package func readings(of timers: [TimerID]) throws(TocsinError) -> [TimerReading?] {
        try core.readings(of: timers)
    }
}
