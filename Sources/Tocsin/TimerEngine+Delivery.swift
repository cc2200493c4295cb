import CTocsin
import Glibc

extension TimerEngine {
    /// `.polled`: a file descriptor that is readable while events wait, never
    /// before one is due, and at most once more at the deadline of an
    /// earliest timer cancelled, suspended or freed meanwhile (`dispatch()`
    /// then returns 0). The engine owns it: poll it, never read, write or close it.
    ///
    /// - Throws: `.wrongState` in other modes, `.closed`.
    public func pollFileDescriptor() throws(TocsinError) -> Int32 {
        lock.lock()
        defer { lock.unlock() }
        guard !closed else { throw .closed }
        guard delivery == .polled, let kernel else { throw .wrongState }
        return kernel.pollFD
    }

    /// `.polled`: delivers on this thread the events that were waiting when it
    /// was called. Calls from several threads are served one after another.
    ///
    /// - Returns: how many handlers it called.
    /// - Throws: `.wrongState` in other modes or from inside a handler, `.closed`.
    @discardableResult
    public func dispatch() throws(TocsinError) -> Int {
        lock.lock()
        defer { lock.unlock() }
        guard !closed else { throw .closed }
        guard delivery == .polled else { throw .wrongState }
        try beginDelivery()
        let delivered = deliverLocked(until: BootClock.now())
        endDelivery()
        return delivered
    }

    /// `.manualClock`: moves the clock on and delivers, on this thread and in
    /// due-time order, everything due at or before the new time, including
    /// events caused by the handlers it calls. While an event is delivered the
    /// clock reads its due time; afterwards it reads the target.
    ///
    /// - Returns: how many handlers it called.
    /// - Throws: `.invalidArgument` for a negative or too long step (or one
    ///   that would take the clock past about 146 years),
    ///   `.wrongState` in other modes or from inside a handler, `.closed`.
    @discardableResult
    public func advance(by step: Duration) throws(TocsinError) -> Int {
        guard let nanoseconds = Nanos.from(step) else { throw .invalidArgument }
        return try advance(nanoseconds: nanoseconds)
    }

    package func advance(nanoseconds step: Int64) throws(TocsinError) -> Int {
        guard step >= 0, step <= Nanos.max else { throw .invalidArgument }
        lock.lock()
        defer { lock.unlock() }
        guard !closed else { throw .closed }
        guard delivery == .manualClock else { throw .wrongState }
        guard step <= Nanos.clockCeiling - manualNow else { throw .invalidArgument }
        try beginDelivery()
        let target = manualNow + step
        let delivered = deliverLocked(until: target)
        if !closed { manualNow = max(manualNow, target) }
        endDelivery()
        return delivered
    }

    /// Claims delivery for this thread, after any other thread's round. Lock held.
    func beginDelivery() throws(TocsinError) {
        guard !onDeliveringThread else { throw .wrongState }
        while deliveringThread != nil && !closed {
            waiters += 1
            lock.wait()
            waiters -= 1
        }
        guard !closed else { throw .closed }
        deliveringThread = pthread_self()
    }

    /// Ends a delivery round: wakes waiters, and re-arms the kernel timer and
    /// (polled) the queued-events signal so the poll fd is readable while
    /// events wait (see `pollFileDescriptor`). Tears the engine down if it
    /// was closed meanwhile. Lock held.
    func endDelivery() {
        deliveringThread = nil
        if waiters > 0 { lock.broadcast() }
        if closed {
            let boxes = teardownLocked()
            lock.unlock()
            for box in boxes { box.release() }
            lock.lock()
            return
        }
        guard let kernel else { return }
        if delivery == .engineThread {
            // Events queued by other threads during the round wait for the
            // kernel timer too (see signalQueuedEvents).
            if queuedEventsDue == nil, let head = pending.first {
                queuedEventsDue = head.time + Self.queuedEventGathering
            }
            rearmKernelTimer()
            return
        }
        rearmKernelTimer()
        if pending.isEmpty == signaled {
            if signaled { kernel.clearSignal() } else { kernel.signal() }
            signaled.toggle()
        }
    }

    /// Delivers events due at or before `limit`, one at a time, each handler
    /// called with the lock dropped. Lock held on entry and on return.
    func deliverLocked(until limit: Int64) -> Int {
        var delivered = 0
        while !closed {
            if batchIsNext(until: limit) {
                delivered += deliverBatch(until: limit)
                continue
            }
            guard let event = takeNextEvent(until: limit) else { break }
            guard let index = slots.index(of: event.handle) else { continue }
            let slot = slots[index].pointee
            let toHandler = slot.wants(event.kind)
            guard toHandler || !observers.isEmpty else { continue }
            let callback = toHandler ? slot.callback : nil
            let box = toHandler ? swiftHandler(of: slot) : nil
            let watching = observers  // a copy: observers may change while the lock is dropped
            deliveringHandle = event.handle
            lock.unlock()
            // On a manual clock the clock reads the due time, so lateness is 0,
            // except for a restored FINISH that fell due while the program was away.
            let lateness = max(0, (delivery == .manualClock ? manualNow : BootClock.now()) - event.due)
            for observer in watching {
                invoke(event, lateness: lateness, callback: observer.callback, context: observer.context, box: observer.box)
            }
            invoke(event, lateness: lateness, callback: callback, context: slot.context, box: consume box)
            lock.lock()
            deliveringHandle = 0
            if waiters > 0 { lock.broadcast() }
            delivered += 1
        }
        return delivered
    }

    /// Calls one handler, lock not held. Takes `box` so that the closure is
    /// released here, before the lock is taken again.
    func invoke(
        _ event: EngineEvent, lateness: Int64, callback: tocsin_callback?, context: UnsafeMutableRawPointer?,
        box: consuming HandlerBox?
    ) {
        if let box {
            box.body(event.timerEvent(lateness: lateness))
        } else if let callback {
            var cEvent = event.cEvent(lateness: lateness)
            callback(cPointer, &cEvent, context)
        }
    }

    /// The next event due at or before `limit`, in order: queued STATE events
    /// before timer events due at the same time or later, timer events by
    /// (deadline, start order). Taking a timer event moves its timer on
    /// (next tick, or finished); on a manual clock it sets the clock to the
    /// event's due time. Lock held.
    func takeNextEvent(until limit: Int64) -> EngineEvent? {
        while true {
            if pendingIsNext(until: limit) {
                if let event = takePendingEvent() { return event }
                continue
            }
            // Stale entries are dropped only once due: a round that delivers
            // only STATE events leaves the heap alone.
            dropStaleTops(dueBy: limit)
            guard let top = heap.top, top.deadline <= limit else { return nil }
            if skipUnheardTicks(top, until: limit) { continue }
            if delivery == .manualClock { manualNow = max(manualNow, top.deadline) }
            if let event = fire(top) { return event }
        }
    }

    /// Takes the queue's head; nil if its timer was freed since. Lock held.
    func takePendingEvent() -> EngineEvent? {
        guard let head = pending.removeFirst(),
              let index = slots.liveIndex(head.slot, generation: head.generation)
        else { return nil }
        return head.engineEvent(head.kind, of: index, in: slots)
    }

    /// True if the queue's head is the next event due by `limit`: queued
    /// events go before heap events due at the same time. Drops stale heap
    /// entries that are due sooner. Lock held.
    func pendingIsNext(until limit: Int64) -> Bool {
        guard let head = pending.first, head.time <= limit else { return false }
        dropStaleTops(dueBy: head.time - 1)
        return heap.top.map { $0.deadline >= head.time } ?? true
    }

    /// A ticking timer nobody listens to (no handler for ticks, no observers) jumps
    /// past every tick due by `limit` at once: no one can tell, and a 1 ns
    /// tick over a long advance would otherwise cost a pass per tick. True if
    /// it jumped. Lock held.
    private func skipUnheardTicks(_ top: HeapEntry, until limit: Int64) -> Bool {
        let index = top.slotIndex
        let slot = slots[index]
        guard !slot.pointee.wants(.tick), observers.isEmpty, slot.pointee.flags.contains(.ticking),
              let due = nextDue(index), due.isTick, var schedule = ticks[index]
        else { return false }
        let heard = slot.pointee.state == .running ? slot.pointee.runningTime(at: max(limit, top.deadline)) : due.runningTime
        schedule.resume(after: heard)  // the first tick after what is due by `limit`
        guard schedule.next > ticks[index]!.next else { return false }  // no progress: deliver normally
        ticks[index] = schedule
        retimeTop(index)
        return true
    }

    /// Moves the heap's top (timer `index`) to the timer's next due event,
    /// or takes it off when nothing more falls due. Lock held.
    private func retimeTop(_ index: Int32) {
        let slot = slots[index]
        if let next = nextDue(index) {
            heap.retimeTop(to: slot.pointee.deadline(forRunningTime: next.runningTime))
        } else {
            heap.removeTop()
            slot.pointee.armKey = 0
        }
    }

    /// Moves the timer at the top of the heap past its due event and returns
    /// that event. Lock held.
    private func fire(_ top: HeapEntry) -> EngineEvent? {
        let index = top.slotIndex
        let slot = slots[index]
        guard let due = nextDue(index) else {
            heap.removeTop()
            slot.pointee.armKey = 0
            return nil
        }
        let handle = slots.handle(of: index)
        if due.isTick, var schedule = ticks[index] {
            let event = EngineEvent(
                kind: .tick, state: .running, handle: handle, elapsed: due.runningTime,
                remaining: slot.pointee.remaining(after: due.runningTime), tick: schedule.next, due: top.deadline)
            schedule.next += 1
            ticks[index] = schedule
            retimeTop(index)
            return event
        }
        heap.removeTop()
        slot.pointee.armKey = 0
        slot.pointee.anchor = slot.pointee.duration
        slot.pointee.state = .finished
        enqueueState(of: index, at: top.deadline, front: true)
        return EngineEvent(
            kind: .finish, state: .finished, handle: handle, elapsed: slot.pointee.duration,
            remaining: 0, tick: 0, due: top.deadline)
    }
}
