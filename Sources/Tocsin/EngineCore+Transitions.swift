import CTocsin
import TocsinBase

/// The state changes of one timer: start, suspend, resume, cancel, lap.
/// Each queues its STATE event; none delivers anything.
extension EngineCore {
    /// Starts an idle, finished or cancelled timer from its full duration
    /// at `now`; on failure the slot is as it was.
    @inline(__always)
    mutating func start(_ index: Int32, at now: Int64) throws(TocsinError) {
        let slot = slots[index]
        guard slot.pointee.state.canStart else { throw .wrongState }
        if slot.pointee.flags.contains(.extras) { try aimAtNextOccurrence(index) }
        let saved = slot.pointee
        // A restart runs from the duration the countdown was created with.
        let base = slot.pointee.flags.contains(.extras) && slot.pointee.state != .idle
            ? baseDurations.removeValue(forKey: index) : nil
        if let base { slot.pointee.duration = base }
        do throws(TocsinError) {
            try beginRun(index, at: now)
        } catch {
            slot.pointee = saved
            if let base { baseDurations[index] = base }
            throw error
        }
    }

    /// Runs timer `index` from running time 0 at `now`: ticks from 1, armed,
    /// laps cleared, STATE queued. If arming fails it throws before the laps
    /// and the queue are touched, for the caller to roll the slot back.
    @inline(__always)
    mutating func beginRun(_ index: Int32, at now: Int64) throws(TocsinError) {
        try makeRoomForEvent()
        let slot = slots[index]
        slot.pointee.anchor = now
        slot.pointee.state = .running
        if slot.pointee.flags.contains(.ticking) { ticks[index]?.restart() }
        aimIfAlarm(index, at: now)
        // notBefore: an alarm whose time has passed finishes now, after its STATE.
        let deadline = try pushDeadline(index, notBefore: now)
        if slot.pointee.flags.contains(.extras) { laps[index] = nil }
        queueStateThenArmKernel(of: index, at: now, deadline: deadline)
    }

    /// A new countdown with a C callback for `events`, started at `now`
    /// (`tocsin_countdown_start`).
    @inline(__always)
    mutating func startCountdown(
        nanoseconds: Int64, at now: Int64, events: TimerEvent.Kinds, callback: tocsin_callback?,
        context: UnsafeMutableRawPointer?
    ) throws(TocsinError) -> TimerID {
        let index = try newSlot(duration: nanoseconds)
        let slot = slots[index]
        slot.pointee.callback = callback
        slot.pointee.context = callback == nil ? nil : context
        slot.pointee.muted = TimerEvent.Kinds.all.subtracting(events)
        do throws(TocsinError) {
            try beginRun(index, at: now)
        } catch {
            slots.release(index)
            throw error
        }
        return TimerID(rawValue: slots.handle(of: index))
    }

    /// Holds a running timer's time where it is.
    mutating func suspend(_ index: Int32) throws(TocsinError) {
        guard slots[index].pointee.state == .running else { throw .wrongState }
        try hold(index, as: .suspended)
    }

    /// Carries a suspended timer on from the time it held, at `now`.
    mutating func resume(_ index: Int32, at now: Int64) throws(TocsinError) {
        let slot = slots[index]
        guard slot.pointee.state == .suspended else { throw .wrongState }
        try makeRoomForEvent()
        let saved = slot.pointee
        slot.pointee.run(at: now)
        slot.pointee.state = .running
        aimIfAlarm(index, at: now)
        let deadline: Int64?
        do throws(TocsinError) {
            deadline = try pushDeadline(index, notBefore: now)  // see beginRun
        } catch {
            slot.pointee = saved
            throw error
        }
        queueStateThenArmKernel(of: index, at: now, deadline: deadline)
    }

    /// Cancels a running or suspended timer.
    mutating func cancel(_ index: Int32) throws(TocsinError) {
        let state = slots[index].pointee.state
        guard state == .running || state == .suspended else { throw .wrongState }
        try hold(index, as: .canceled)
        rearmWakeIfWakes(index)
    }

    /// Holds the timer's running time, moves it to `state` (suspended or
    /// cancelled), takes it off the heap and queues its STATE event.
    private mutating func hold(_ index: Int32, as state: TimerState) throws(TocsinError) {
        try makeRoomForEvent()
        let now = clockNow()  // under the lock: never before an event already delivered
        let slot = slots[index]
        slot.pointee.hold(at: now)
        slot.pointee.state = state
        if slot.pointee.flags.contains(.ticking), var schedule = ticks[index], schedule.folded > 0 {
            // Held before a folded tick fell due (a handler of the same round):
            // the ticks it skipped past the time held are not missed yet.
            let due = UInt64(max(0, slot.pointee.anchor) / schedule.interval) + 1
            if schedule.next > due {
                schedule.folded -= min(schedule.folded, schedule.next - due)
                schedule.next = due
                ticks[index] = schedule
            }
        }
        disarm(index)
        if index == wallOwner { wallDirty = true }
        enqueueState(of: index, at: now)
    }

    /// Changes a countdown's duration by `delta` ns for the current run (the
    /// rules are `TimerEngine.adjust`'s). Queues a STATE event with the
    /// timer's state, unless the change finishes it: then its FINISH falls
    /// due now. On failure nothing changed.
    mutating func adjust(_ index: Int32, by delta: Int64) throws(TocsinError) {
        if !alarmTimes.isEmpty, alarmTimes[index] != nil {
            guard !isCalendar(index) else { throw .invalidArgument }  // its times are the spec's
            return try adjustAlarm(index, by: delta)
        }
        let slot = slots[index]
        guard !slot.pointee.isStopwatch, delta != 0 else { throw .invalidArgument }
        let state = slot.pointee.state
        guard state != .canceled else { throw .wrongState }
        let oldDuration = slot.pointee.duration
        let newDuration = oldDuration + delta  // both within 100 years: no overflow
        guard newDuration > 0, newDuration <= Nanos.max else { throw .invalidArgument }
        let now = clockNow()  // under the lock: never before an event already delivered
        let elapsed = slot.pointee.runningTime(at: now)
        switch state {
        case .idle, .suspended:
            guard newDuration > elapsed else { throw .invalidArgument }
            try makeRoomForEvent()
            noteBaseDuration(index, was: oldDuration)
            slot.pointee.duration = newDuration
            enqueueState(of: index, at: now)
        case .running:
            try makeRoomForEvent()
            let finishesNow = newDuration <= elapsed
            try rearm(index) { core throws(TocsinError) in
                core.slots[index].pointee.duration = newDuration
                return try core.pushDeadline(index, notBefore: now)
            }
            noteBaseDuration(index, was: oldDuration)
            if !finishesNow { enqueueState(of: index, at: now) }
        case .finished:
            guard delta > 0 else { throw .invalidArgument }
            try makeRoomForEvent()
            try rearm(index) { core throws(TocsinError) in
                let slot = core.slots[index]
                slot.pointee.duration = newDuration
                slot.pointee.anchor = oldDuration  // running time carries on from the old end
                slot.pointee.run(at: now)
                slot.pointee.state = .running
                if slot.pointee.flags.contains(.ticking) { core.ticks[index]?.resume(after: oldDuration) }
                return try core.pushDeadline(index)
            }
            noteBaseDuration(index, was: oldDuration)
            heldFinishes[index] = nil  // it runs again
            enqueueState(of: index, at: now)
        case .canceled:
            throw .wrongState
        }
    }

    /// Remembers the duration the countdown had before its first adjustment
    /// since it was created or last restarted.
    private mutating func noteBaseDuration(_ index: Int32, was duration: Int64) {
        let slot = slots[index]
        if slot.pointee.flags.contains(.extras), baseDurations[index] != nil { return }
        baseDurations[index] = duration
        slot.pointee.flags.insert(.extras)
    }

    /// Records a lap of a running or suspended timer; returns its length.
    mutating func lap(_ index: Int32) throws(TocsinError) -> Int64 {
        let slot = slots[index]
        let state = slot.pointee.state
        guard state == .running || state == .suspended else { throw .wrongState }
        let runningTime = slot.pointee.runningTime(at: clockNow())
        var record = laps[index] ?? LapRecord()
        let lap = runningTime - record.mark
        record.mark = runningTime
        record.lengths.append(lap)
        laps[index] = record
        slot.pointee.flags.insert(.extras)
        return lap
    }
}
