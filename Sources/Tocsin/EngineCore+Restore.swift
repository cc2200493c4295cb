import TocsinBase

/// The timers as the timer file keeps them, and back.
extension EngineCore {
    /// Every timer as saved now, in creation order (or just `only`'s).
    mutating func savedTimers(only: [Int32]? = nil) -> [SavedTimer] {
        if !awakeTimers.isEmpty { catchUpAwakeTimers() }
        let now = clockNow()
        return (only ?? liveIndicesInCreationOrder()).map { index in
            var slot = slots[index].pointee
            if alarmTimes[index] != nil {  // re-aimed on load: kept within the file's limits
                slot.duration = min(slot.duration, Nanos.max)
                slot.anchor = slot.state == .running ? slot.anchor : min(slot.anchor, slot.duration)
            }
            return SavedTimer(
                stopwatch: slot.isStopwatch, label: labels[index] ?? "", duration: slot.duration,
                tick: ticks[index]?.interval ?? 0, state: slot.state, elapsed: slot.runningTime(at: now),
                laps: laps[index]?.lengths ?? [], originalDuration: baseDurations[index],
                coalescesTicks: slot.flags.contains(.coalescesTicks), clock: clock(of: index),
                alarmTime: alarmTimes[index], calendar: calendars[index]?.spec.normalized,
                skipUntil: skippedUntil(index), wake: wakes(index),
                leeway: leeway(of: index))
        }
    }

    /// Adds `saved` as new timers, `away` ns after they were saved; all or
    /// nothing. Returns their handles in order.
    mutating func restore(_ saved: [SavedTimer], away: TimerFile.TimeAway) throws(TocsinError) -> [TimerID] {
        guard !closed else { throw .closed }
        var restored: [Int32] = []
        do throws(TocsinError) {
            for timer in saved {
                guard let index = slots.allocate() else { throw .outOfMemory }
                restored.append(index)
                try restore(timer, into: index, away: away)
            }
        } catch {
            for index in restored {
                disarm(index)
                clearSideTables(index)
                slots.release(index)
            }
            throw error
        }
        return restored.map { TimerID(rawValue: slots.handle(of: $0)) }
    }

    /// Fills a fresh slot from a saved timer.
    private mutating func restore(_ saved: SavedTimer, into index: Int32, away: TimerFile.TimeAway) throws(TocsinError) {
        let now = clockNow()
        let slot = slots[index]
        slot.pointee.duration = saved.stopwatch ? 0 : saved.duration
        slot.pointee.created = nextCreated
        nextCreated &+= 1
        if !saved.label.isEmpty {
            labels[index] = saved.label
            slot.pointee.flags.insert(.extras)
        }
        if !saved.laps.isEmpty {
            laps[index] = LapRecord(mark: saved.laps.reduce(0, +), lengths: saved.laps)
            slot.pointee.flags.insert(.extras)
        }
        if saved.coalescesTicks { slot.pointee.flags.insert(.coalescesTicks) }
        if saved.leeway != 0 {
            leeways[index] = saved.leeway
            slot.pointee.flags.insert(.extras)
        }
        if let original = saved.originalDuration {
            baseDurations[index] = original
            slot.pointee.flags.insert(.extras)
        }
        if saved.clock == .awake {
            if awakeTimers.isEmpty { suspendedSeen = timeSuspended() }
            awakeTimers.insert(index)
            slot.pointee.flags.insert(.extras)
        }
        var running = saved.elapsed
        var state = saved.state
        if let time = saved.alarmTime {
            alarmTimes[index] = time
            slot.pointee.flags.insert(.extras)
            wallDirty = true
            if let text = saved.calendar {
                guard let spec = try? CalendarSpec(parsing: text, checkingZone: false) else { throw .corrupt }
                let schedule = CalendarAlarm(spec: spec)
                schedule.skipUntil = saved.skipUntil
                calendars[index] = schedule
            }
            if state == .running {
                running = running.addingSaturated(away.boot)
                let clocks = wallAndBootClocks()
                if clocks.wall >= time, saved.calendar != nil,
                   restoreOccurrencesAway(index, wall: clocks.wall, now: now) {
                    // rang while away, and rings on
                } else if clocks.wall >= time {  // rang while away
                    state = .finished
                    heldFinishes[index] = now - (clocks.wall - time)
                    running = max(1, saved.elapsed)
                    slot.pointee.duration = running
                }
            }
        } else if state == .running {
            running = running.addingSaturated(saved.clock == .awake ? away.awake : away.boot)
            if !saved.stopwatch && running >= saved.duration {  // ran out while away
                state = .finished
                heldFinishes[index] = now - (running - saved.duration)
                slot.pointee.flags.insert(.extras)
                running = saved.duration
            }
        }
        if saved.wake {
            wakeTimers.insert(index)
            slot.pointee.flags.insert(.extras)
            _ = openWakeTimers()
        }
        if saved.tick > 0 {
            var schedule = TickSchedule(interval: saved.tick)
            schedule.resume(after: state == .idle ? 0 : running)
            ticks[index] = schedule
            slot.pointee.flags.insert(.ticking)
        }
        slot.pointee.state = state
        slot.pointee.anchor = running
        if state == .running {
            slot.pointee.run(at: now)
            aimIfAlarm(index, at: now)
            try arm(index)
            if saved.wake { rearmWake() }
        } else if state == .idle || state == .suspended {
            let clocks = wallAndBootClocks()
            if state == .idle, saved.calendar != nil { followOccurrences(index, wall: clocks.wall) }
            aim(index, wallLead: clocks.wall.subtractingSaturated(clocks.boot), at: clocks.boot)
        }
    }

    /// Queues a restored timer's held FINISH once its handler wants it.
    @inline(__always)
    mutating func releaseHeldFinish(_ index: Int32) {
        if slots[index].pointee.flags.contains(.extras) { releaseHeldFinishIfWanted(index) }
    }

    private mutating func releaseHeldFinishIfWanted(_ index: Int32) {
        let slot = slots[index]
        // Out of memory for the queue, the FINISH stays held for the next
        // handler change rather than being lost.
        guard slot.pointee.wants(.finish), pending.makeRoom(for: 2),
              let due = heldFinishes.removeValue(forKey: index) else { return }
        if slot.pointee.state == .running { return queueHeldOccurrence(index, due: due) }  // a calendar alarm
        let duration = slot.pointee.duration
        pending.append(PendingEvent(of: index, in: slots, state: .finished, time: due, elapsed: duration, isFinish: true))
        pending.append(PendingEvent(of: index, in: slots, state: .finished, time: due, elapsed: duration))
        signalQueuedEvents(since: due)
    }
}
