import CTocsin
import Synchronization

/// A STATE event taken for delivery in a batch, with the handler it goes to.
struct BatchEntry {
    var event: EngineEvent
    var callback: tocsin_callback?
    var context: UnsafeMutableRawPointer?
    var box: HandlerBox?
    /// Dropped since it was taken: its timer was freed, or lost its handler.
    var dropped = false
}

/// The two words shared without the lock by a batch's delivering thread and
/// the callers that change what it holds.
final class BatchSignals: Sendable {
    /// Bumped by changes to a batch out for delivery.
    let epoch = Atomic<UInt64>(0)
    /// The handle whose batched event is being delivered; 0 if none.
    let claim = Atomic<UInt64>(0)
}

/// Batched delivery of queued STATE events, on a real clock.
///
/// A host that starts a million timers queues a million STATE events, and the
/// delivering thread would take the lock once per event, fighting the host
/// for it. Instead it takes up to `batchLimit` queued events under one lock
/// and calls their handlers without it. What a caller may change meanwhile
/// (free a timer, set its handler, remove an observer, close the engine)
/// bumps `batchSignals.epoch`; before each handler the delivering thread publishes
/// the timer it is about to serve in `batchSignals.claim` and compares the epoch.
/// Both are sequentially consistent, so a caller that bumped the epoch and
/// then found another timer claimed knows the delivering thread will see its
/// change before it serves anything else. Only when the claimed timer is its
/// own does the caller wait, as for an unbatched handler, until the
/// delivering thread re-checks the batch under the lock (`batchAcked`).
///
/// TICK and FINISH events are not batched: cancel's promise (no tick or
/// finish after it returns) stays as simple as one event per lock. Nor is a
/// manual clock's delivery: there a handler can start a timer due before the
/// next queued event, so only one event at a time keeps due-time order.
extension TimerEngine {
    static var batchLimit: Int { 64 }

    /// True if the next event due by `limit` is a queued one worth batching.
    /// Lock held.
    func batchIsNext(until limit: Int64) -> Bool {
        delivery != .manualClock && pendingIsNext(until: limit)
    }

    /// Takes queued events due by `limit` (at most `batchLimit`), calls their
    /// handlers with the lock dropped, and returns how many it called. Lock
    /// held on entry and on return.
    func deliverBatch(until limit: Int64) -> Int {
        while batch.count < Self.batchLimit, pendingIsNext(until: limit) {
            guard let event = takePendingEvent(), let index = slots.index(of: event.handle) else { continue }
            let slot = slots[index]
            let toHandler = slot.pointee.wants(event.kind)
            guard toHandler || !observers.isEmpty else { continue }
            slot.pointee.flags.insert(.batched)
            batch.append(BatchEntry(
                event: event, callback: toHandler ? slot.pointee.callback : nil, context: slot.pointee.context,
                box: toHandler ? swiftHandler(of: slot.pointee) : nil))
        }
        guard !batch.isEmpty else { return 0 }
        var watching = observers
        var seen = batchSignals.epoch.load(ordering: .sequentiallyConsistent)
        batchAcked = seen
        batchOut = true
        lock.unlock()

        var delivered = 0
        var position = 0
        while position < batch.count {
            batchSignals.claim.store(batch[position].event.handle, ordering: .sequentiallyConsistent)
            let epoch = batchSignals.epoch.load(ordering: .sequentiallyConsistent)
            if epoch != seen {
                seen = epoch
                lock.lock()
                var retired = recheckBatch(from: position, observers: &watching)
                batchAcked = epoch
                if waiters > 0 { lock.broadcast() }
                lock.unlock()
                retired.removeAll()  // released here, outside the lock
            }
            let entry = batch[position]
            position += 1
            guard !entry.dropped else { continue }
            let lateness = max(0, BootClock.now() - entry.event.due)
            for observer in watching {
                invoke(entry.event, lateness: lateness, callback: observer.callback, context: observer.context,
                       box: observer.box)
            }
            invoke(entry.event, lateness: lateness, callback: entry.callback, context: entry.context, box: entry.box)
            delivered += 1
        }
        batchSignals.claim.store(0, ordering: .sequentiallyConsistent)
        for position in batch.indices { batch[position].box = nil }  // released outside the lock
        watching = []

        lock.lock()
        batchOut = false
        batchAcked = batchSignals.epoch.load(ordering: .sequentiallyConsistent)
        if !tornDown {
            for entry in batch {
                if let index = slots.index(of: entry.event.handle) { slots[index].pointee.flags.remove(.batched) }
            }
        }
        batch.removeAll(keepingCapacity: true)
        if waiters > 0 { lock.broadcast() }
        return delivered
    }

    /// Brings the rest of the batch up to date after a caller changed
    /// something: drops entries of freed timers (or all, once closed), takes
    /// each timer's current handler, and the current observers. Returns the
    /// Swift handlers it let go, for release outside the lock. Lock held.
    private func recheckBatch(from start: Int, observers watching: inout [Observer]) -> [HandlerBox?] {
        var retired: [HandlerBox?] = []
        watching = closed ? [] : observers
        for position in start..<batch.count where !batch[position].dropped {
            retired.append(batch[position].box)
            batch[position].box = nil
            guard !closed, let index = slots.index(of: batch[position].event.handle) else {
                batch[position].dropped = true
                continue
            }
            let slot = slots[index].pointee
            let toHandler = slot.wants(batch[position].event.kind)
            batch[position].callback = toHandler ? slot.callback : nil
            batch[position].context = slot.context
            batch[position].box = toHandler ? swiftHandler(of: slot) : nil
            batch[position].dropped = !toHandler && watching.isEmpty
        }
        return retired
    }

    /// Tells a batch out for delivery that something it holds changed: timer
    /// `handle` (freed, or its handler set), or for nil everything (observers,
    /// close). Returns the epoch to pass to `waitForBatch`, or nil if no batch
    /// holds the timer. Call while the timer's handle is still live. Lock held.
    func bumpBatchEpoch(for handle: UInt64?) -> UInt64? {
        guard batchOut else { return nil }
        if let handle {
            guard let index = slots.index(of: handle), slots[index].pointee.flags.contains(.batched) else { return nil }
        }
        return batchSignals.epoch.add(1, ordering: .sequentiallyConsistent).newValue
    }

    /// From a thread other than the delivering one: if the batch may be
    /// running `handle`'s handler (any handler, for nil), waits until the
    /// delivering thread has seen epoch `mine`, which it does right after
    /// that handler returns. Lock held.
    func waitForBatch(_ mine: UInt64?, runningHandler handle: UInt64?) {
        guard let mine, !onDeliveringThread else { return }
        let claimed = batchSignals.claim.load(ordering: .sequentiallyConsistent)
        guard claimed != 0, handle == nil || claimed == handle else { return }
        while batchOut && batchAcked < mine {
            waiters += 1
            lock.wait()
            waiters -= 1
        }
    }

    /// Waits while another thread's batch runs `handle`'s handler (part of
    /// `waitWhileDelivering`, for cancel and free). Lock held.
    func waitWhileBatchRuns(_ handle: UInt64) {
        guard batchOut, !onDeliveringThread,
              batchSignals.claim.load(ordering: .sequentiallyConsistent) == handle else { return }
        waitForBatch(batchSignals.epoch.add(1, ordering: .sequentiallyConsistent).newValue, runningHandler: handle)
    }

    /// The retained Swift handler of a slot, if it has one. Lock held.
    func swiftHandler(of slot: TimerSlot) -> HandlerBox? {
        guard slot.flags.contains(.swiftHandler), let context = slot.context else { return nil }
        return Unmanaged<HandlerBox>.fromOpaque(context).takeUnretainedValue()
    }
}
