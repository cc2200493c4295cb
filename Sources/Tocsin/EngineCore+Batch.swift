import Synchronization

/// Batched delivery of queued STATE events.
///
/// A host that starts a million timers queues a million STATE events, and the
/// delivering thread would take the lock once per event, fighting the host
/// for it. Instead it takes up to `batchLimit` queued events under one lock
/// (`claimBatch`) and calls their handlers without it
/// (`TimerEngine.deliverBatch`). What a caller may change meanwhile (free a
/// timer, set its handler or its events, add or remove an observer, close
/// the engine) bumps `batchSignals.epoch`; before each handler the
/// delivering thread publishes the timer it is about to serve in
/// `batchSignals.claim` and compares the epoch. Both are sequentially
/// consistent, so a caller that bumped the epoch and then found another
/// timer claimed knows the delivering thread will see its change before it
/// serves anything else (`recheckBatch`). Only when the claimed timer is its
/// own does the caller wait, as for an unbatched handler, until the
/// delivering thread has re-checked the batch (`batchAcked`).
///
/// Every mode batches, the manual clock included, so the deterministic tests
/// (the model test first) run this protocol: a handler that frees a timer
/// or changes a handler is the single-threaded case of the same change.
/// TICK and FINISH events are not batched: cancel's promise (no tick or
/// finish after it returns) stays as simple as one event per lock.
extension EngineCore {
    static var batchLimit: Int { 64 }

    /// Moves up to `batchLimit` queued events due by `limit`, and before any
    /// timer event, into `batch`, with their timers' handlers; drops those of
    /// freed timers, and marks dropped those nobody wants now (an observer
    /// added before delivery still gets them). Each timer is looked up once.
    /// The heap does not change meanwhile, so its first live deadline bounds
    /// the whole batch. Returns how many it claimed.
    mutating func claimBatch(until limit: Int64) -> Int {
        dropStaleTops(dueBy: limit)
        let bound = min(limit, heap.top?.deadline ?? .max)
        let anyObserver = !observers.isEmpty
        while batch.count < Self.batchLimit, let head = pending.first, head.time <= bound {
            _ = pending.removeFirst()
            guard let index = slots.liveIndex(head.slot, generation: head.generation) else { continue }
            let slot = slots[index]
            let kind = head.kind
            let toHandler = slot.pointee.wants(kind)
            var event = head.engineEvent(kind, of: index, in: slots)
            if head.isFinish { event.missed = takeHeldMissed(index) }
            batch.append(BatchEntry(
                event: event, callback: toHandler ? slot.pointee.callback : nil,
                context: slot.pointee.context, box: toHandler ? retainedSwiftHandler(of: slot.pointee) : nil,
                dropped: !toHandler && !anyObserver),
                slot: index)
        }
        if batch.count > 0 {
            batchAcked = batchSignals.epoch.load(ordering: .sequentiallyConsistent)
            batchOut = true
        }
        return batch.count
    }

    /// Brings the batch from `start` on up to date after a caller changed
    /// something: drops entries of freed timers (or all, once closed), takes
    /// each timer's current handler, and the current observers. Returns the
    /// Swift handlers it let go, for release outside the lock.
    mutating func recheckBatch(from start: Int, observers watching: inout [Observer]) -> [Unmanaged<HandlerBox>] {
        var retired: [Unmanaged<HandlerBox>] = []
        watching = closed ? [] : observers
        let entries = batch.entries
        for position in start..<batch.count {
            if let box = entries[position].box { retired.append(box) }
            entries[position].box = nil
            guard !closed, let index = slots.index(of: entries[position].event.handle) else {
                entries[position].dropped = true
                continue
            }
            let slot = slots[index].pointee
            let toHandler = slot.wants(entries[position].event.kind)
            entries[position].callback = toHandler ? slot.callback : nil
            entries[position].context = slot.context
            entries[position].box = toHandler ? retainedSwiftHandler(of: slot) : nil
            entries[position].dropped = !toHandler && watching.isEmpty
        }
        return retired
    }

    /// Ends a batch once its handlers have run and their boxes are released.
    mutating func retireBatch() {
        batchOut = false
        batchAcked = batchSignals.epoch.load(ordering: .sequentiallyConsistent)
        batch.removeAll()
    }

    /// Tells a batch out for delivery that something it holds changed: timer
    /// `handle` (freed, or its handler set), or for nil everything (observers,
    /// close). Returns the epoch to wait for (`Locked.waitForBatch`), or nil
    /// if no batch holds the timer. Call while the timer's handle is still live.
    mutating func bumpBatchEpoch(for handle: UInt64?) -> UInt64? {
        guard batchOut else { return nil }
        if let handle, !batch.holds(handle) { return nil }
        return batchSignals.epoch.add(1, ordering: .sequentiallyConsistent).newValue
    }
}
