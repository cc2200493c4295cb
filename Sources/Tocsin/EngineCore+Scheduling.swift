/// When things fall due: the deadline heap, the one kernel timer, and the
/// queue of STATE events with the signal that tells the delivering side.
extension EngineCore {
    // MARK: - The deadline heap

    /// Pushes the timer's next due event, if any, onto the heap, and arms the
    /// kernel timer if it is now the earliest.
    mutating func arm(_ index: Int32) throws(TocsinError) {
        if let deadline = try pushDeadline(index) { armKernelTimer(by: deadline) }
    }

    /// Pushes the timer's next due event, if any, onto the heap and returns
    /// its key (the deadline, never before `notBefore`, rounded up to the
    /// timer's leeway); the kernel timer is left alone.
    @inline(__always)
    mutating func pushDeadline(_ index: Int32, notBefore: Int64 = .min) throws(TocsinError) -> Int64? {
        let slot = slots[index]
        guard let due = nextDue(index) else {
            slot.pointee.armKey = 0
            return nil
        }
        let deadline = firingTime(max(slot.pointee.deadline(forRunningTime: due.runningTime), notBefore), of: index)
        let key = (nextSequence << 24) | UInt64(index)
        guard heap.push(HeapEntry(deadline: deadline, key: key)) else { throw .outOfMemory }
        // 40 bits of sequence: ties keep start order for 10^12 starts.
        nextSequence = nextSequence == (1 << 40) - 1 ? 1 : nextSequence + 1
        slot.pointee.armKey = key
        return deadline
    }

    /// Replaces the timer's heap entry: `change` alters the slot (and its
    /// tick schedule) and pushes the new entry. If the push fails the slot,
    /// its schedule and its old entry come back.
    mutating func rearm(
        _ index: Int32, _ change: (inout EngineCore) throws(TocsinError) -> Int64?
    ) throws(TocsinError) {
        let (saved, savedTicks) = (slots[index].pointee, ticks[index])
        disarm(index)
        let deadline: Int64?
        do throws(TocsinError) {
            deadline = try change(&self)
        } catch {
            slots[index].pointee = saved
            slots[index].pointee.armKey = 0
            ticks[index] = savedTicks
            if saved.state == .running { try? arm(index) }  // the old entry went stale: arm it again
            throw error
        }
        if let deadline { armKernelTimer(by: deadline) }
    }

    /// Marks the timer's heap entry stale. Stale entries are dropped when they
    /// reach the top, or all at once when they outnumber the live ones, so
    /// this is O(1) amortized and makes no system call unless no live entry
    /// is left. The kernel timer stays armed for a cancelled earliest timer:
    /// the engine's thread may wake once for it, a poll fd turn readable
    /// once (dispatch then delivers nothing), and either rearms for the next
    /// live deadline. Moving it on every such cancel cost a system call per
    /// cancel for hosts that cancel timeouts in deadline order.
    mutating func disarm(_ index: Int32) {
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
            let slots = slots
            heap.compact { slots[$0.slotIndex].pointee.armKey == $0.key }
            staleEntries = 0
        }
    }

    /// The timer's next due event (see `TimerSlot.nextDue`).
    @inline(__always)
    func nextDue(_ index: Int32) -> (runningTime: Int64, isTick: Bool)? {
        let slot = slots[index]
        return slot.pointee.nextDue(ticks: slot.pointee.flags.contains(.ticking) ? ticks[index] : nil)
    }

    /// Drops stale entries from the top of the heap, those due by `limit`
    /// (all of them by default).
    mutating func dropStaleTops(dueBy limit: Int64 = .max) {
        while let top = heap.top, top.deadline <= limit, slots[top.slotIndex].pointee.armKey != top.key {
            heap.removeTop()
            staleEntries -= 1
        }
    }

    // MARK: - The kernel timer

    /// Arms the kernel timer for `deadline` if it is armed for later, unless
    /// a delivery round is under way (the round rearms it at its end).
    @inline(__always)
    mutating func armKernelTimer(by deadline: Int64) {
        guard let kernel, deliveringThread == nil, deadline < armedDeadline else { return }
        kernel.arm(at: deadline)
        armedDeadline = deadline
        #if DEBUG
        kernelTimerArmsByCalls += 1
        #endif
    }

    /// Arms the kernel timer for the earliest live deadline (or the queued
    /// events' gathering deadline, if sooner).
    mutating func rearmKernelTimer() {
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

    // MARK: - The queue of STATE events

    /// Makes sure the queue can take one more STATE event, so that a change
    /// is refused before it is made rather than made without its event.
    @inline(__always)
    mutating func makeRoomForEvent() throws(TocsinError) {
        guard pending.makeRoom(for: 1) else { throw .outOfMemory }
    }

    /// Queues the STATE event of a start or resume, then arms the kernel timer
    /// for the run's deadline if needed: in that order, because the engine
    /// thread's gathering deadline is usually the sooner, and a burst's first
    /// start then costs one timer system call instead of two.
    @inline(__always)
    mutating func queueStateThenArmKernel(of index: Int32, at now: Int64, deadline: Int64?) {
        enqueueState(of: index, at: now)
        if let deadline { armKernelTimer(by: deadline) }
    }

    /// Queues a STATE event for the timer's current state, if its handler
    /// wants it or an observer watches. `front`: ahead of the queue (the
    /// STATE after a FINISH). Callers that change a timer make room first
    /// (`makeRoomForEvent`); only a FINISH's STATE, queued while delivering,
    /// can find the queue full and memory exhausted, and is then dropped:
    /// the FINISH itself is still delivered.
    @inline(__always)
    mutating func enqueueState(of index: Int32, at time: Int64, front: Bool = false) {
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
    /// 1.5x slower than in a polled engine.
    @inline(__always)
    mutating func signalQueuedEvents(since time: Int64) {
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
