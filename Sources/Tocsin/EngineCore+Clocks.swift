import TocsinBase

/// The clocks other than the boot clock.
///
/// Every timer's running time is kept on the boot clock, and the heap and
/// the kernel timer know only that clock. The other clocks are reached by
/// moving timers on when those clocks part from it:
/// - An AWAKE timer does not count time suspended. When the boot clock has
///   gained on the awake clock since the last look (`suspendedSeen`), every
///   running AWAKE timer's anchor moves on by the gain. The engine looks
///   before it touches an AWAKE timer and when one falls due, so a suspend
///   is never counted (after one, the kernel timer may wake the engine
///   early once, for nothing).
/// - An alarm rings when the wall clock reaches its time. It is a countdown
///   whose duration is re-aimed (`aim`) whenever the wall clock's lead over
///   the boot clock changes: when it is started or resumed, when the
///   kernel's wall timer reports the clock set or the alarm time reached,
///   when the manual wall clock is set, and whenever one falls due
///   before the wall clock reads its time (it is then not delivered).
extension EngineCore {
    // MARK: - Reading the clocks

    /// The time this boot has spent suspended (manual: simulated), in ns.
    func timeSuspended() -> Int64 {
        delivery == .manualClock ? manualSuspended : Clocks.timeSuspended()
    }

    /// The wall clock (Unix time in ns) and the boot clock, read together.
    /// Real clocks: the wall clock first, so that the wall clock's lead
    /// comes out short by the time between the reads, never long: an alarm
    /// aimed with it is late by that time, never early.
    func wallAndBootClocks() -> (wall: Int64, boot: Int64) {
        if delivery == .manualClock { return (manualNow.addingSaturated(manualWallLead), manualNow) }
        let wall = Clocks.realtime()
        return (wall, bootClockNow())
    }

    /// The wall clock in Unix ns (manual: simulated).
    func wallClock() -> Int64 { wallAndBootClocks().wall }

    // MARK: - Awake timers

    /// Puts an idle timer on `clock`.
    mutating func setClock(_ clock: TimerClock, of index: Int32) throws(TocsinError) {
        guard slots[index].pointee.state == .idle else { throw .wrongState }
        guard clock == .boot || alarmTimes[index] == nil else { throw .invalidArgument }
        switch clock {
        case .boot:
            awakeTimers.remove(index)
        case .awake:
            if awakeTimers.isEmpty { suspendedSeen = timeSuspended() }
            awakeTimers.insert(index)
            slots[index].pointee.flags.insert(.extras)
        }
    }

    func clock(of index: Int32) -> TimerClock {
        slots[index].pointee.flags.contains(.extras) && awakeTimers.contains(index) ? .awake : .boot
    }

    /// Brings timer `index` up to date with the clocks before a call reads
    /// or changes it: AWAKE timers past a suspend, an idle or suspended
    /// alarm re-aimed (its time left shrinks as the wall clock goes on).
    @inline(__always)
    mutating func catchUpClocks(of index: Int32) {
        guard slots[index].pointee.flags.contains(.extras) else { return }
        if !awakeTimers.isEmpty { _ = catchUpAwakeTimers() }
        if !alarmTimes.isEmpty, alarmTimes[index] != nil {
            let state = slots[index].pointee.state
            if state == .idle || state == .suspended || state == .canceled {
                let clocks = wallAndBootClocks()
                if state != .suspended, isCalendar(index) { followOccurrences(index, wall: clocks.wall) }
                if state != .canceled {
                    aim(index, wallLead: clocks.wall.subtractingSaturated(clocks.boot), at: clocks.boot)
                }
            }
        }
    }

    /// Moves every running AWAKE timer on past the time suspended since the
    /// last look, and re-pushes it. Real clocks: gains under 100 µs are the
    /// clocks' read error, not a suspend. True if any timer moved.
    @discardableResult
    mutating func catchUpAwakeTimers() -> Bool {
        let suspended = timeSuspended()
        let gain = suspended - suspendedSeen
        guard gain > (delivery == .manualClock ? 0 : 100_000) else { return false }
        // Out of memory for the heap: try again at the next look.
        guard heap.reserve(heap.count + awakeTimers.count) else { return false }
        suspendedSeen = suspended
        let running = inArmOrder(awakeTimers.filter { slots[$0].pointee.state == .running })
        for index in running {
            let wasArmed = slots[index].pointee.armKey != 0
            disarm(index)
            slots[index].pointee.anchor = slots[index].pointee.anchor.addingSaturated(gain)
            if wasArmed, let deadline = try? pushDeadline(index) { armKernelTimer(by: deadline) }
        }
        return !running.isEmpty
    }

    /// Timers in the order they were armed (unarmed ones last), so that
    /// re-pushing them keeps their start order for events due together.
    private func inArmOrder(_ indices: some Sequence<Int32>) -> [Int32] {
        indices.sorted { (slots[$0].pointee.armKey &- 1) < (slots[$1].pointee.armKey &- 1) }
    }

    // MARK: - Alarms

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

    // MARK: - The simulated machine (manual clock)

    /// Jumps the manual clocks: boot and wall by `step`, the awake clock
    /// only if `suspended` is false. The caller delivers what fell due.
    mutating func jumpManualClocks(by step: Int64, suspended: Bool) {
        manualNow += step
        if suspended {
            manualSuspended += step
            catchUpAwakeTimers()
        }
    }

    /// Sets the manual wall clock to `time` (Unix ns) and re-aims the alarms.
    mutating func setManualWallClock(_ time: Int64) {
        manualWallLead = time - manualNow
        reaimAlarms()
    }
}
