import CTocsin
import TocsinBase

/// Who an event goes to: the timer's handler (if it wants the kind) and the
/// observers as they were when it was taken. Taken under the lock, used
/// without it.
struct Recipients {
    var callback: tocsin_callback?
    var context: UnsafeMutableRawPointer?
    /// The timer's Swift handler, retained; released after the call.
    var box: Unmanaged<HandlerBox>?
    var observers: [Observer]
    /// A manual clock's time when the event was taken (nil: read the boot
    /// clock when it is delivered), for its lateness.
    var manualNow: Int64?
}

/// What falls due next, in order, and the bookkeeping of a delivery round.
/// The round itself (calling handlers with the lock dropped) is
/// `TimerEngine+Delivery`.
extension EngineCore {
    /// True if the queue's head is the next event due by `limit`: queued
    /// events go before heap events due at the same time. Drops stale heap
    /// entries that are due sooner.
    mutating func pendingIsNext(until limit: Int64) -> Bool {
        guard let head = pending.first, head.time <= limit else { return false }
        dropStaleTops(dueBy: head.time - 1)
        return heap.top.map { $0.deadline >= head.time } ?? true
    }

    /// The next timer event (tick or finish) due at or before `limit`, by
    /// (deadline, start order); the caller has checked that no queued event
    /// goes first (`pendingIsNext`). Taking it moves its timer on (next tick,
    /// or finished); on a manual clock it sets the clock to the due time.
    /// Nil also when a fold moved a timer behind a queued event: the caller
    /// looks at the queue again.
    mutating func takeTimerEvent(until limit: Int64) -> EngineEvent? {
        while true {
            // Stale entries are dropped only once due: a round that delivers
            // only STATE events leaves the heap alone.
            dropStaleTops(dueBy: limit)
            guard let top = heap.top, top.deadline <= limit else { return nil }
            if isEarly(top) || skipUnheardTicks(top, until: limit) { continue }
            if let event = fire(top, until: limit) {
                // The time it fired at: a leeway's key may be after its due time.
                if delivery == .manualClock { manualNow = max(manualNow, max(event.due, top.deadline)) }
                return event
            }
            // Moved on (a fold): a queued STATE event may come first now.
            if pendingIsNext(until: limit) { return nil }
        }
    }

    /// Who gets `event` (its timer still live); nil if nobody wants it.
    mutating func recipients(of event: EngineEvent) -> Recipients? {
        guard let index = slots.index(of: event.handle) else { return nil }
        let slot = slots[index].pointee
        let toHandler = slot.wants(event.kind)
        guard toHandler || !observers.isEmpty else { return nil }
        return Recipients(
            callback: toHandler ? slot.callback : nil, context: slot.context,
            box: toHandler ? retainedSwiftHandler(of: slot) : nil, observers: observers,
            manualNow: delivery == .manualClock ? manualNow : nil)
    }

    /// A ticking timer nobody listens to (no handler for ticks, no observers)
    /// jumps past every tick due by `limit` at once: no one can tell, and a
    /// 1 ns tick over a long advance would otherwise cost a pass per tick.
    /// True if it jumped.
    private mutating func skipUnheardTicks(_ top: HeapEntry, until limit: Int64) -> Bool {
        let index = top.slotIndex
        let slot = slots[index]
        guard !slot.pointee.wants(.tick), observers.isEmpty, slot.pointee.flags.contains(.ticking),
              let due = nextDue(index), due.isTick, let current = ticks[index]
        else { return false }
        let heard = slot.pointee.state == .running ? slot.pointee.runningTime(at: max(limit, top.deadline)) : due.runningTime
        var schedule = current
        schedule.resume(after: heard)  // the first tick after what is due by `limit`
        guard schedule.next > current.next else { return false }  // no progress: deliver normally
        ticks[index] = schedule
        retimeTop(index)
        return true
    }

    /// Moves the heap's top (timer `index`) to the timer's next due event,
    /// or takes it off when nothing more falls due.
    mutating func retimeTop(_ index: Int32) {
        let slot = slots[index]
        if let next = nextDue(index) {
            heap.retimeTop(to: firingTime(slot.pointee.deadline(forRunningTime: next.runningTime), of: index))
        } else {
            heap.removeTop()
            slot.pointee.armKey = 0
        }
    }

    /// Moves the timer at the top of the heap past its due event and returns
    /// that event; a coalescing timer's ticks due by `limit` before anything
    /// else become one TICK.
    private mutating func fire(_ top: HeapEntry, until limit: Int64) -> EngineEvent? {
        let index = top.slotIndex
        let slot = slots[index]
        guard let due = nextDue(index) else {
            heap.removeTop()
            slot.pointee.armKey = 0
            return nil
        }
        let handle = slots.handle(of: index)
        if due.isTick, var schedule = ticks[index] {
            roundTicks += 1
            if roundTicks > tickBurst {
                // Over the round's budget: on to this timer's last tick due
                // by `limit`, delivered in its place in due order.
                let latest = latestTick(of: slot.pointee, schedule: schedule, dueBy: limit)
                if latest > schedule.next {
                    schedule.folded += latest - schedule.next
                    schedule.next = latest
                    ticks[index] = schedule
                    retimeTop(index)
                    return nil
                }
            }
            var tick = schedule.next
            var (runningTime, deadline) = (due.runningTime, dueTime(of: top, runningTime: due.runningTime))
            if slot.pointee.flags.contains(.coalescesTicks) {
                tick = latestTickDueFirst(top, schedule: schedule, until: limit)
                if tick != schedule.next {
                    runningTime = Int64(tick) * schedule.interval
                    deadline = slot.pointee.deadline(forRunningTime: runningTime)
                }
            }
            let event = EngineEvent(
                kind: .tick, state: .running, handle: handle, elapsed: runningTime,
                remaining: slot.pointee.remaining(after: runningTime), tick: tick, due: deadline,
                missed: tick - schedule.next + schedule.folded)
            schedule.next = tick + 1
            schedule.folded = 0
            ticks[index] = schedule
            retimeTop(index)
            return event
        }
        let dueAt = dueTime(of: top, runningTime: due.runningTime)
        if wakes(index) { wakeDirty = true }  // it finishes or rings: the round's end rescans
        if index == wallOwner { wallDirty = true }
        if isCalendar(index), let event = stepCalendar(index, due: dueAt, firedAt: top.deadline) { return event }
        heap.removeTop()
        slot.pointee.armKey = 0
        slot.pointee.anchor = slot.pointee.duration
        slot.pointee.state = .finished
        enqueueState(of: index, at: dueAt, front: true)
        return EngineEvent(
            kind: .finish, state: .finished, handle: handle, elapsed: slot.pointee.duration,
            remaining: 0, tick: 0, due: dueAt)
    }

    /// The last tick of the heap's top timer (coalescing, running, ticks
    /// due) that is due by `limit` and would still be delivered before any
    /// other event: before the next live heap entry (by deadline, then
    /// start order) and before a queued STATE event. Stale heap entries
    /// among the top's children are dropped on the way. O(1) amortized.
    private mutating func latestTickDueFirst(_ top: HeapEntry, schedule: TickSchedule, until limit: Int64) -> UInt64 {
        var last = limit  // the latest deadline a tick may have
        while let position = heap.runnerUpPosition {
            let next = heap[position]
            guard slots[next.slotIndex].pointee.armKey == next.key else {
                heap.remove(at: position)  // stale: nothing is due there
                staleEntries -= 1
                continue
            }
            last = min(last, top.key < next.key ? next.deadline : next.deadline - 1)
            break
        }
        if let head = pending.first { last = min(last, head.time - 1) }
        return latestTick(of: slots[top.slotIndex].pointee, schedule: schedule, dueBy: last)
    }

    /// The number of a running timer's last tick due by `last` (engine
    /// clock), or its next one if that is later; never one at or after a
    /// countdown's end (folded into its finish).
    private func latestTick(of slot: TimerSlot, schedule: TickSchedule, dueBy last: Int64) -> UInt64 {
        let reach = last.subtractingSaturated(slot.anchor)  // running time at `last`
        var latest = reach >= 0 ? UInt64(reach / schedule.interval) : 0
        if !slot.isStopwatch {  // ticks at or after the end are folded into the finish
            latest = min(latest, UInt64((slot.duration - 1) / schedule.interval))
        }
        return max(schedule.next, latest)
    }

    /// Ends a delivery round that is not closing the engine: re-arms the
    /// kernel timer and (polled) the queued-events signal, so the poll fd is
    /// readable while events wait (see `TimerEngine.pollFileDescriptor`).
    mutating func endRound() {
        deliveringThread = nil
        guard let kernel, !closed else { return }
        if wallDirty { rearmWallTimer() }
        if wakeDirty { rearmWake() }
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

    /// The slot's Swift handler with one more reference, to release when
    /// done with it, if it has one.
    @inline(__always)
    func retainedSwiftHandler(of slot: TimerSlot) -> Unmanaged<HandlerBox>? {
        guard slot.flags.contains(.swiftHandler), let context = slot.context else { return nil }
        return Unmanaged<HandlerBox>.fromOpaque(context).retain()
    }
}
