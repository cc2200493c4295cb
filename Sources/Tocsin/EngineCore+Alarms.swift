import TocsinBase

/// Alarms (see `EngineCore+Clocks` for how the wall clock is followed):
/// aiming one at its wall time and re-aiming every one when the wall clock
/// moves, adjusting one, the kernel's wall timer that follows the earliest,
/// and an alarm that falls due before the wall clock reads its time.
extension EngineCore {
    /// Re-aims an alarm that is about to run from `now` (start, resume).
    @inline(__always)
    mutating func aimIfAlarm(_ index: Int32, at now: Int64) {
        guard !alarmTimes.isEmpty, slots[index].pointee.flags.contains(.extras), alarmTimes[index] != nil else { return }
        let clocks = wallAndBootClocks()
        aim(index, wallLead: clocks.wall.subtractingSaturated(clocks.boot), at: now)
        // Only sooner: a full `rearmWallTimer` scans every alarm, which made
        // starting n alarms O(n²) (11 µs an alarm at 20,000). The end of
        // the next delivery round moves it on to the earliest again.
        if let kernel, let time = alarmTimes[index], time < armedWallTime {
            kernel.armWall(at: time)
            armedWallTime = time
            wallOwner = index
        }
    }

    /// Moves alarm `index`'s time by `delta` ns (see `TimerEngine.adjust`):
    /// the time moves for good. Idle or suspended, the new time must be
    /// ahead of the wall clock; running, a time at or behind it finishes
    /// the alarm at once; finished, a positive delta rings it again `delta`
    /// from now. Queues a STATE event unless the change finishes it.
    mutating func adjustAlarm(_ index: Int32, by delta: Int64) throws(TocsinError) {
        guard let time = alarmTimes[index] else { return }
        let slot = slots[index]
        let state = slot.pointee.state
        guard state != .canceled else { throw .wrongState }
        let clocks = wallAndBootClocks()
        let lead = clocks.wall.subtractingSaturated(clocks.boot)
        let now = clocks.boot
        let newTime = (state == .finished ? clocks.wall : time).addingSaturated(delta)
        guard delta != 0, newTime >= 0, newTime <= Nanos.max, state != .finished || delta > 0 else {
            throw .invalidArgument
        }
        try makeRoomForEvent()
        switch state {
        case .idle, .suspended:
            guard newTime > clocks.wall else { throw .invalidArgument }
            alarmTimes[index] = newTime
            aim(index, wallLead: lead, at: now)
            enqueueState(of: index, at: now)
        case .running:
            let finishesNow = newTime <= clocks.wall
            do throws(TocsinError) {
                try rearm(index) { core throws(TocsinError) in
                    core.alarmTimes[index] = newTime
                    core.aim(index, wallLead: lead, at: now)
                    return try core.pushDeadline(index)
                }
            } catch {
                alarmTimes[index] = time
                throw error
            }
            if !finishesNow { enqueueState(of: index, at: now) }
        case .finished:
            let ran = slot.pointee.duration
            do throws(TocsinError) {
                try rearm(index) { core throws(TocsinError) in
                    core.alarmTimes[index] = newTime
                    let slot = core.slots[index]
                    slot.pointee.anchor = ran  // running time carries on from the ring
                    slot.pointee.run(at: now)
                    slot.pointee.state = .running
                    if slot.pointee.flags.contains(.ticking) { core.ticks[index]?.resume(after: ran) }
                    core.aim(index, wallLead: lead, at: now)
                    return try core.pushDeadline(index)
                }
            } catch {
                alarmTimes[index] = time
                throw error
            }
            heldFinishes[index] = nil
            enqueueState(of: index, at: now)
        case .canceled:
            throw .wrongState
        }
        rearmWallTimer()
    }

    /// A new idle alarm for the wall-clock time `time` (Unix ns).
    mutating func newAlarm(at time: Int64) throws(TocsinError) -> Int32 {
        let clocks = wallAndBootClocks()
        let index = try newSlot(duration: 1)
        alarmTimes[index] = time
        slots[index].pointee.flags.insert(.extras)
        aim(index, wallLead: clocks.wall.subtractingSaturated(clocks.boot), at: clocks.boot)
        return index
    }

    /// Sets alarm `index`'s duration (and, running, its anchor) so that it
    /// finishes when the wall clock reads its time, given the wall clock's
    /// lead over the boot clock and the boot clock `now`. Its running time
    /// is kept. A time already passed: the duration is the running time
    /// (at least 1 ns), and a running alarm's finish falls due when the
    /// wall clock passed the time, so its lateness says by how much. Does
    /// not touch the heap.
    mutating func aim(_ index: Int32, wallLead: Int64, at now: Int64) {
        guard let time = alarmTimes[index] else { return }
        let slot = slots[index]
        let running = slot.pointee.state == .running
        let ran = max(0, running ? now.subtractingSaturated(slot.pointee.anchor) : slot.pointee.anchor)
        let due = time.subtractingSaturated(wallLead)  // on the boot clock
        if due > now {
            // Unclamped: a clamped duration would end before the alarm time.
            // At most the manual clock's ceiling plus 100 years: no overflow.
            slot.pointee.duration = ran.addingSaturated(due - now)
            if running { slot.pointee.anchor = now - ran }
        } else {
            slot.pointee.duration = max(ran, 1)
            if running { slot.pointee.anchor = due.subtractingSaturated(slot.pointee.duration) }
        }
    }

    /// Re-aims every alarm at the clocks as they read now; running ones are
    /// re-pushed (those whose time has come fall due at once).
    mutating func reaimAlarms() {
        guard !alarmTimes.isEmpty, heap.reserve(heap.count + alarmTimes.count) else { return }
        if !wakeTimers.isEmpty { wakeDirty = true }
        wallDirty = true
        let clocks = wallAndBootClocks()
        let lead = clocks.wall.subtractingSaturated(clocks.boot)
        for index in inArmOrder(alarmTimes.keys) {
            switch slots[index].pointee.state {
            case .running:
                let wasArmed = slots[index].pointee.armKey != 0
                disarm(index)
                aim(index, wallLead: lead, at: clocks.boot)
                if wasArmed, let deadline = try? pushDeadline(index) { armKernelTimer(by: deadline) }
            case .idle, .suspended:
                aim(index, wallLead: lead, at: clocks.boot)
            case .finished, .canceled:
                break
            }
        }
    }

    /// Arms the kernel's wall timer for the earliest running alarm (with
    /// `force`, even if it is armed for that time already: after it
    /// reported news, which re-arming clears).
    mutating func rearmWallTimer(force: Bool = false) {
        guard let kernel else { return }
        wallDirty = false
        var earliest = Int64.max
        var owner: Int32 = -1
        for (index, time) in alarmTimes where slots[index].pointee.state == .running && time < earliest {
            (earliest, owner) = (time, index)
        }
        wallOwner = owner
        guard force || earliest != armedWallTime else { return }
        kernel.armWall(at: earliest)
        armedWallTime = earliest
    }

    /// Real clocks, at the start of a delivery round: if the wall timer
    /// says the wall clock was set or an alarm's time came, re-aims the
    /// alarms.
    mutating func takeWallClockNews() {
        guard let kernel, armedWallTime != .max, kernel.takeWallClockNews() else { return }
        reaimAlarms()
        rearmWallTimer(force: true)
    }

    /// Called when `top` is due by the boot clock: true if its event is not
    /// really due, because its timer counts another clock. The timer has
    /// then been moved on (its entry re-pushed), and the caller looks at
    /// the heap again.
    @inline(__always)
    mutating func isEarly(_ top: HeapEntry) -> Bool {
        guard !awakeTimers.isEmpty || !alarmTimes.isEmpty,
              slots[top.slotIndex].pointee.flags.contains(.extras) else { return false }
        return isEarlyOnItsClock(top.slotIndex)
    }

    private mutating func isEarlyOnItsClock(_ index: Int32) -> Bool {
        if !awakeTimers.isEmpty, awakeTimers.contains(index) { return catchUpAwakeTimers() }
        // A manual clock's alarms are aimed exactly: nothing to check (and a
        // check that failed would find the same deadline again, forever).
        guard delivery != .manualClock, !alarmTimes.isEmpty, let time = alarmTimes[index],
              nextDue(index)?.isTick == false else { return false }
        let clocks = wallAndBootClocks()
        guard clocks.wall < time else { return false }
        disarm(index)
        aim(index, wallLead: clocks.wall.subtractingSaturated(clocks.boot), at: clocks.boot)
        if let deadline = try? pushDeadline(index) { armKernelTimer(by: deadline) }
        return true
    }
}
