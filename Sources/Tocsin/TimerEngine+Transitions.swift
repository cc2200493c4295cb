package import CTocsin

extension TimerEngine {
    /// Starts an idle, finished or cancelled timer from its full duration:
    /// running time 0, laps cleared, ticks from 1.
    ///
    /// - Throws: `.wrongState` if running or suspended; `.outOfMemory`
    ///   (nothing changed) if the engine's tables cannot grow.
    /// - Complexity: O(log n) in the number of armed timers.
    public func start(_ timer: TimerID) throws(TocsinError) {
        let realNow = clockBeforeLock()
        try withTimer(timer) { index, slot throws(TocsinError) in
            guard slot.pointee.state.canStart else { throw .wrongState }
            let saved = slot.pointee
            do throws(TocsinError) {
                try beginRun(index, at: realNow ?? manualNow)
            } catch {
                slot.pointee = saved
                throw error
            }
        }
    }

    /// Runs timer `index` from running time 0 at `now`: ticks from 1, armed,
    /// laps cleared, STATE queued. If arming fails it throws before the laps
    /// and the queue are touched, for the caller to roll the slot back. Lock held.
    @inline(__always)
    private func beginRun(_ index: Int32, at now: Int64) throws(TocsinError) {
        try makeRoomForEvent()
        let slot = slots[index]
        slot.pointee.anchor = now
        slot.pointee.state = .running
        if slot.pointee.flags.contains(.ticking) { ticks[index]?.next = 1 }
        let deadline = try pushDeadline(index)
        if slot.pointee.flags.contains(.extras) { laps[index] = nil }
        queueStateThenArmKernel(of: index, at: now, deadline: deadline)
    }

    /// Queues the STATE event of a start or resume, then arms the kernel timer
    /// for the run's deadline if needed: in that order, because the engine
    /// thread's gathering deadline is usually the sooner, and a burst's first
    /// start then costs one timer system call instead of two. Lock held.
    @inline(__always)
    private func queueStateThenArmKernel(of index: Int32, at now: Int64, deadline: Int64?) {
        enqueueState(of: index, at: now)
        if let deadline { armKernelTimer(by: deadline) }
    }

    /// Creates a countdown with a C callback for `events` and starts it, all
    /// under one lock: `tocsin_countdown_start`.
    package func startCountdown(
        nanoseconds: Int64, events: TimerEvent.Kinds, callback: tocsin_callback?, context: UnsafeMutableRawPointer?
    ) throws(TocsinError) -> TimerID {
        guard nanoseconds > 0, nanoseconds <= Nanos.max, TimerEvent.Kinds.all.isSuperset(of: events) else {
            throw .invalidArgument
        }
        let realNow = clockBeforeLock()
        lock.lock()
        defer { lock.unlock() }
        let index = try newSlot(duration: nanoseconds)
        let slot = slots[index]
        slot.pointee.callback = callback
        slot.pointee.context = callback == nil ? nil : context
        slot.pointee.muted = TimerEvent.Kinds.all.subtracting(events)
        do throws(TocsinError) {
            try beginRun(index, at: realNow ?? manualNow)
        } catch {
            slots.release(index)
            throw error
        }
        return TimerID(rawValue: slots.handle(of: index))
    }

    /// Holds a running timer's time exactly where it is.
    ///
    /// - Throws: `.wrongState` unless running; `.outOfMemory` (nothing
    ///   changed) if the event queue cannot grow.
    /// - Complexity: O(1) amortized.
    public func suspend(_ timer: TimerID) throws(TocsinError) {
        try withTimer(timer) { index, slot throws(TocsinError) in
            guard slot.pointee.state == .running else { throw .wrongState }
            try makeRoomForEvent()
            let now = clockNow()  // under the lock: never before an event already delivered
            slot.pointee.hold(at: now)
            slot.pointee.state = .suspended
            disarm(index)
            enqueueState(of: index, at: now)
        }
    }

    /// Carries a suspended timer on from the time it held.
    ///
    /// - Throws: `.wrongState` unless suspended; `.outOfMemory` (nothing
    ///   changed) if the engine's tables cannot grow.
    /// - Complexity: O(log n).
    public func resume(_ timer: TimerID) throws(TocsinError) {
        let realNow = clockBeforeLock()
        try withTimer(timer) { index, slot throws(TocsinError) in
            guard slot.pointee.state == .suspended else { throw .wrongState }
            try makeRoomForEvent()
            let now = realNow ?? manualNow
            let saved = slot.pointee
            slot.pointee.run(at: now)
            slot.pointee.state = .running
            let deadline: Int64?
            do throws(TocsinError) {
                deadline = try pushDeadline(index)
            } catch {
                slot.pointee = saved
                throw error
            }
            queueStateThenArmKernel(of: index, at: now, deadline: deadline)
        }
    }

    /// Cancels a running or suspended timer. When this returns no tick or
    /// finish of the run is delivered: from another thread it waits for a
    /// running handler of the timer to return. The run's last event is the
    /// change to `.canceled`.
    ///
    /// - Throws: `.wrongState` unless running or suspended; `.outOfMemory`
    ///   (nothing changed) if the event queue cannot grow.
    /// - Complexity: O(1) amortized.
    public func cancel(_ timer: TimerID) throws(TocsinError) {
        try withTimer(timer) { index, slot throws(TocsinError) in
            let state = slot.pointee.state
            guard state == .running || state == .suspended else { throw .wrongState }
            try makeRoomForEvent()
            let now = clockNow()  // under the lock: never before an event already delivered
            slot.pointee.hold(at: now)
            slot.pointee.state = .canceled
            disarm(index)
            enqueueState(of: index, at: now)
            waitWhileDelivering(timer.rawValue)
        }
    }

    /// Records a lap on a running or suspended timer of either kind and
    /// returns its length: running time since the previous lap (or the start).
    ///
    /// - Throws: `.wrongState` unless running or suspended.
    public func lap(_ timer: TimerID) throws(TocsinError) -> Duration {
        .nanoseconds(try lapNanoseconds(timer))
    }

    package func lapNanoseconds(_ timer: TimerID) throws(TocsinError) -> Int64 {
        try withTimer(timer) { index, slot throws(TocsinError) in
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

    // MARK: - The deadline heap

    /// Pushes the timer's next due event, if any, onto the heap, and arms the
    /// kernel timer if it is now the earliest. Lock held.
    func arm(_ index: Int32) throws(TocsinError) {
        if let deadline = try pushDeadline(index) { armKernelTimer(by: deadline) }
    }

    /// Pushes the timer's next due event, if any, onto the heap and returns
    /// its deadline; the kernel timer is left alone. Lock held.
    @inline(__always)
    func pushDeadline(_ index: Int32) throws(TocsinError) -> Int64? {
        let slot = slots[index]
        guard let due = nextDue(index) else {
            slot.pointee.armKey = 0
            return nil
        }
        let deadline = slot.pointee.deadline(forRunningTime: due.runningTime)
        let key = (nextSequence << 24) | UInt64(index)
        guard heap.push(HeapEntry(deadline: deadline, key: key)) else { throw .outOfMemory }
        // 40 bits of sequence: ties keep start order for 10^12 starts.
        nextSequence = nextSequence == (1 << 40) - 1 ? 1 : nextSequence + 1
        slot.pointee.armKey = key
        return deadline
    }

    /// Arms the kernel timer for `deadline` if it is armed for later, unless
    /// a delivery round is under way (the round rearms it at its end). Lock held.
    @inline(__always)
    func armKernelTimer(by deadline: Int64) {
        guard let kernel, deliveringThread == nil, deadline < armedDeadline else { return }
        kernel.arm(at: deadline)
        armedDeadline = deadline
        #if DEBUG
        kernelTimerArmsByCalls += 1
        #endif
    }

    /// Marks the timer's heap entry stale. Stale entries are dropped when they
    /// reach the top, or all at once when they outnumber the live ones, so
    /// this is O(1) amortized and makes no system call unless no live entry
    /// is left. The kernel timer stays armed for a cancelled earliest timer:
    /// the engine's thread may wake once for it, a poll fd turn readable
    /// once (dispatch then delivers nothing), and either rearms for the next
    /// live deadline. Moving it on every such cancel cost a system call per
    /// cancel for hosts that cancel timeouts in deadline order.
    /// Lock held.
    func disarm(_ index: Int32) {
        let slot = slots[index]
        let key = slot.pointee.armKey
        guard key != 0 else { return }
        slot.pointee.armKey = 0
        staleEntries += 1
        if staleEntries == heap.count {
            heap.removeAll()  // nothing live left: no wakeup for a cancelled timer
            staleEntries = 0
            if deliveringThread == nil { rearmKernelTimer() }
        } else if staleEntries > 1024 && staleEntries > heap.count / 2 {
            heap.compact { slots[$0.slotIndex].pointee.armKey == $0.key }
            staleEntries = 0
        }
    }

    /// The timer's next due event (see `TimerSlot.nextDue`). Lock held.
    @inline(__always)
    func nextDue(_ index: Int32) -> (runningTime: Int64, isTick: Bool)? {
        let slot = slots[index]
        return slot.pointee.nextDue(ticks: slot.pointee.flags.contains(.ticking) ? ticks[index] : nil)
    }

    /// Drops stale entries from the top of the heap, those due by `limit`
    /// (all of them by default). Lock held.
    func dropStaleTops(dueBy limit: Int64 = .max) {
        while let top = heap.top, top.deadline <= limit, slots[top.slotIndex].pointee.armKey != top.key {
            heap.removeTop()
            staleEntries -= 1
        }
    }

    /// Arms the kernel timer for the earliest live deadline. Lock held.
    func rearmKernelTimer() {
        guard let kernel else { return }
        // The kernel timer moves anyway: a poll fd is then armed for a live
        // deadline. The engine's thread drops stale tops when it wakes.
        if delivery != .engineThread { dropStaleTops() }
        let target = min(heap.top?.deadline ?? .max, queuedEventsDue ?? .max)
        if target != armedDeadline {
            kernel.arm(at: target)
            armedDeadline = target
            #if DEBUG
            kernelTimerRearms += 1
            #endif
        }
    }

    /// Makes sure the queue can take one more STATE event, so that a change
    /// is refused before it is made rather than made without its event.
    /// Lock held.
    @inline(__always)
    func makeRoomForEvent() throws(TocsinError) {
        guard pending.makeRoom(for: 1) else { throw .outOfMemory }
    }

    /// Queues a STATE event for the timer's current state, if its handler
    /// wants it or an observer watches. `front`: ahead of the queue (the
    /// STATE after a FINISH). Callers that change a timer make room first
    /// (`makeRoomForEvent`); only a FINISH's STATE, queued while delivering,
    /// can find the queue full and memory exhausted, and is then dropped:
    /// the FINISH itself is still delivered. Lock held.
    @inline(__always)
    func enqueueState(of index: Int32, at time: Int64, front: Bool = false) {
        let slot = slots[index].pointee
        guard slot.wants(.stateChange) || !observers.isEmpty else { return }
        let event = PendingEvent(of: index, in: slots, state: slot.state, time: time, elapsed: slot.runningTime(at: time))
        if front {
            pending.prepend(event)
        } else {
            pending.append(event)
            signalQueuedEvents(since: time)
        }
    }

    /// How long a queued event waits at most for the engine thread, in ns.
    static var queuedEventGathering: Int64 { 1_000_000 }

    /// Tells the delivering side that events were queued, the first of them
    /// at `time`, unless a delivery round is under way (it takes them).
    ///
    /// A poll fd turns readable at once. The engine thread instead gets a
    /// kernel timer deadline up to `queuedEventGathering` later, and delivers
    /// everything queued by then together, sooner if a timer falls due. A
    /// host that starts timers in a burst would otherwise have that thread
    /// drain the queue while the host fills it, the two fighting over the lock
    /// and the cache lines of the queue and the slots: three-call starts were
    /// 1.5x slower than in a polled engine. Lock held.
    @inline(__always)
    func signalQueuedEvents(since time: Int64) {
        guard let kernel, deliveringThread == nil else { return }
        if delivery == .engineThread {
            guard queuedEventsDue == nil else { return }
            let due = time + Self.queuedEventGathering
            queuedEventsDue = due
            armKernelTimer(by: due)
        } else if !signaled {
            kernel.signal()
            signaled = true
        }
    }
}
