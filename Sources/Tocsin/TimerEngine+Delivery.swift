import CTocsin
import Glibc
import Synchronization

extension TimerEngine {
    /// The most ticks one delivery round (an engine-thread wakeup, a
    /// `dispatch()`, an `advance(by:)`) delivers one by one; past these,
    /// each timer's ticks still due in the round fold into one `.tick` of
    /// its latest, delivered in due order with `missed` counting the ones
    /// skipped (tocsin.h, BOUNDED ROUNDS). So any interval from 1 ns up is
    /// served in bounded work per round.
    public static let tickBurst = EngineCore.defaultTickBurst

    /// For tests: a round's tick budget other than `tickBurst` (at least 1).
    package func setTickBurst(_ burst: Int) {
        core.withLock { $0.tickBurst = max(1, burst) }
    }

    /// `.polled`: a file descriptor that is readable while events wait, never
    /// before one is due, and at most once more at the deadline of an
    /// earliest timer cancelled, suspended or freed meanwhile (`dispatch()`
    /// then returns 0). The engine owns it: poll it, never read, write or close it.
    ///
    /// - Throws: `.wrongState` in other modes, `.closed`.
    public func pollFileDescriptor() throws(TocsinError) -> Int32 {
        try core.pollFileDescriptor()
    }

    /// `.polled`: delivers on this thread the events that were waiting when it
    /// was called, with at most `tickBurst` ticks one by one: it returns
    /// after bounded work. Calls from several threads are served one after another.
    ///
    /// - Returns: how many handlers it called.
    /// - Throws: `.wrongState` in other modes or from inside a handler, `.closed`.
    @discardableResult
    public func dispatch() throws(TocsinError) -> Int {
        try core.withLockAndWaits { locked throws(TocsinError) in
            guard !locked.core.closed else { throw .closed }
            guard delivery == .polled else { throw .wrongState }
            try locked.beginDelivery()
            let delivered = deliver(locked, until: bootClockNow())
            locked.endDelivery()
            return delivered
        }
    }

    /// `.manualClock`: moves the clock on and delivers, on this thread and in
    /// due-time order, everything due at or before the new time, including
    /// events caused by the handlers it calls; ticks past `tickBurst` are
    /// folded, as in any round. While an event is delivered the
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
        try changeManualClocks(step: step) { core, target in target }
    }

    /// `.manualClock`: simulates a suspend of the machine for `duration`:
    /// the boot and wall clocks move on by it, the awake clock does not
    /// (AWAKE timers stand still). Then delivers what fell due, as `advance`
    /// does, except that the clock is already at the end of the suspend:
    /// events that fell due during it are delivered late, as after a real one.
    ///
    /// - Returns: how many handlers it called.
    /// - Throws: as `advance`.
    @discardableResult
    public func simulateSuspend(for duration: Duration) throws(TocsinError) -> Int {
        guard let nanoseconds = Nanos.from(duration) else { throw .invalidArgument }
        return try simulateSuspend(nanoseconds: nanoseconds)
    }

    package func simulateSuspend(nanoseconds step: Int64) throws(TocsinError) -> Int {
        try changeManualClocks(step: step) { core, target in
            core.jumpManualClocks(by: step, suspended: true)
            return core.manualNow
        }
    }

    /// `.manualClock`: sets the wall clock to `unixTime` (time since
    /// 1970-01-01 00:00 UTC; it reads 0 until first set), forward or back,
    /// and delivers what that makes due: alarms whose time it passed finish,
    /// late by as much as it passed them. The boot and awake clocks stay.
    ///
    /// - Returns: how many handlers it called.
    /// - Throws: `.invalidArgument` for a negative time or one past
    ///   `TOCSIN_MAX_SECONDS`, `.wrongState` in other modes or from inside
    ///   a handler, `.closed`.
    @discardableResult
    public func setWallClock(_ unixTime: Duration) throws(TocsinError) -> Int {
        guard let nanoseconds = Nanos.from(unixTime) else { throw .invalidArgument }
        return try setWallClock(nanoseconds: nanoseconds)
    }

    package func setWallClock(nanoseconds time: Int64) throws(TocsinError) -> Int {
        guard time >= 0, time <= Nanos.max else { throw .invalidArgument }
        return try changeManualClocks(step: 0) { core, target in
            core.setManualWallClock(time)
            return target
        }
    }

    /// Moves the manual clocks (`change` returns the time to deliver up to)
    /// and delivers what is due by then; the clock ends there.
    private func changeManualClocks(
        step: Int64, _ change: (inout EngineCore, Int64) -> Int64
    ) throws(TocsinError) -> Int {
        guard step >= 0, step <= Nanos.max else { throw .invalidArgument }
        return try core.withLockAndWaits { locked throws(TocsinError) in
            guard !locked.core.closed else { throw .closed }
            guard delivery == .manualClock else { throw .wrongState }
            guard step <= Nanos.clockCeiling - locked.core.manualNow else { throw .invalidArgument }
            try locked.beginDelivery()
            let target = locked.access { core in change(&core, core.manualNow + step) }
            let delivered = deliver(locked, until: target)
            if !locked.core.closed { locked.core.manualNow = max(locked.core.manualNow, target) }
            locked.endDelivery()
            return delivered
        }
    }

    /// Delivers events due at or before `limit` in order: queued STATE
    /// events in batches, each tick and finish on its own; every handler is
    /// called with the lock dropped. Returns how many handlers it called.
    func deliver(_ locked: borrowing Locked, until limit: Int64) -> Int {
        var delivered = 0
        locked.core.roundTicks = 0
        locked.core.takeWallClockNews()
        while !locked.core.closed {
            if locked.core.pendingIsNext(until: limit) {
                delivered += deliverBatch(locked, until: limit)
                continue
            }
            guard let event = locked.core.takeTimerEvent(until: limit) else {
                if locked.core.pendingIsNext(until: limit) { continue }  // a fold put it behind the queue
                break
            }
            guard let recipients = locked.core.recipients(of: event) else { continue }
            locked.core.deliveringHandle = event.handle
            locked.unlocked {
                let lateness = max(0, (recipients.manualNow ?? bootClockNow()).subtractingSaturated(event.due))
                for observer in recipients.observers {
                    invoke(event, lateness: lateness, callback: observer.callback, context: observer.context,
                           box: observer.box)
                }
                invoke(event, lateness: lateness, callback: recipients.callback, context: recipients.context,
                       box: recipients.box?.takeUnretainedValue())
                recipients.box?.release()
            }
            locked.core.deliveringHandle = 0
            locked.wakeWaiters()
            delivered += 1
        }
        return delivered
    }

    /// Claims a batch of queued STATE events (`EngineCore.claimBatch`) and
    /// calls their handlers with the lock dropped, re-checking the batch
    /// whenever a caller changed something it holds (see `EngineCore+Batch`).
    /// Returns how many handlers it called.
    private func deliverBatch(_ locked: borrowing Locked, until limit: Int64) -> Int {
        let count = locked.core.claimBatch(until: limit)
        guard count > 0 else { return 0 }
        var watching = locked.core.observers
        let signals = locked.core.batchSignals
        let entries = locked.core.batch.entries
        let manualNow = delivery == .manualClock ? locked.core.manualNow : nil
        var seen = locked.core.batchAcked
        var delivered = 0
        locked.unlocked {
            for position in 0..<count {
                signals.claim.store(entries[position].event.handle, ordering: .sequentiallyConsistent)
                let epoch = signals.epoch.load(ordering: .sequentiallyConsistent)
                if epoch != seen {
                    seen = epoch
                    let retired = core.withLockAndWaits { again in
                        let retired = again.core.recheckBatch(from: position, observers: &watching)
                        again.core.batchAcked = epoch
                        again.wakeWaiters()
                        return retired
                    }
                    for box in retired { box.release() }  // outside the lock
                }
                let entry = entries[position]
                guard !entry.dropped else { continue }
                let lateness = max(0, (manualNow ?? bootClockNow()).subtractingSaturated(entry.event.due))
                for observer in watching {
                    invoke(entry.event, lateness: lateness, callback: observer.callback, context: observer.context,
                           box: observer.box)
                }
                invoke(entry.event, lateness: lateness, callback: entry.callback, context: entry.context,
                       box: entry.box?.takeUnretainedValue())
                delivered += 1
            }
            signals.claim.store(0, ordering: .sequentiallyConsistent)
            for position in 0..<count {
                entries[position].box?.release()  // outside the lock
                entries[position].box = nil
            }
            watching = []
        }
        locked.core.retireBatch()
        locked.wakeWaiters()
        return delivered
    }

    /// Calls one handler, lock not held. Takes `box` so that the closure is
    /// released here, before the lock is taken again.
    private func invoke(
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
}
