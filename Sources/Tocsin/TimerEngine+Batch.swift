import CTocsin
import Glibc
import Synchronization

/// A STATE event taken for delivery in a batch, with the handler it goes to.
/// Plain bytes, so a batch is a fixed buffer filled without reference counting
/// or copy helpers while the lock is held.
struct BatchEntry {
    var event: EngineEvent
    var callback: tocsin_callback?
    var context: UnsafeMutableRawPointer?
    /// The timer's Swift handler, retained while the entry holds it.
    var box: Unmanaged<HandlerBox>?
    /// Dropped since it was taken: its timer was freed, or lost its handler.
    var dropped = false
}

/// The events of one batch (at most `TimerEngine.batchLimit`), with their
/// handles kept apart and the range of their slot indices, so that a caller
/// asking "is my timer in it?" reads a few words, not every entry. Filled
/// and emptied by the delivering thread under the lock; without the lock
/// only that thread touches it, and only its entries. Not thread-safe.
struct BatchBuffer {
    let entries: UnsafeMutablePointer<BatchEntry>
    let handles: UnsafeMutablePointer<UInt64>
    private(set) var count = 0
    private var lowestSlot = Int32.max
    private var highestSlot = Int32.min

    /// Nil when out of memory.
    init?(capacity: Int) {
        guard let entries = malloc(capacity * MemoryLayout<BatchEntry>.stride),
              let handles = malloc(capacity * MemoryLayout<UInt64>.stride)
        else { return nil }
        self.entries = entries.bindMemory(to: BatchEntry.self, capacity: capacity)
        self.handles = handles.bindMemory(to: UInt64.self, capacity: capacity)
    }

    @inline(__always)
    mutating func append(_ entry: BatchEntry, slot: Int32) {
        (entries + count).initialize(to: entry)
        handles[count] = entry.event.handle
        count += 1
        lowestSlot = min(lowestSlot, slot)
        highestSlot = max(highestSlot, slot)
    }

    func holds(_ handle: UInt64) -> Bool {
        let slot = Int32(truncatingIfNeeded: handle & 0xFF_FFFF)
        guard slot >= lowestSlot, slot <= highestSlot else { return false }
        for position in 0..<count where handles[position] == handle { return true }
        return false
    }

    /// Empties the buffer; the entries' boxes must have been released.
    mutating func removeAll() {
        count = 0
        lowestSlot = .max
        highestSlot = .min
    }

    func deallocate() {
        free(entries)
        free(handles)
    }
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
        claimBatch(until: limit)
        guard batch.count > 0 else { return 0 }
        var watching = observers
        var seen = batchSignals.epoch.load(ordering: .sequentiallyConsistent)
        batchAcked = seen
        batchOut = true
        lock.unlock()

        var delivered = 0
        let entries = batch.entries
        for position in 0..<batch.count {
            batchSignals.claim.store(entries[position].event.handle, ordering: .sequentiallyConsistent)
            let epoch = batchSignals.epoch.load(ordering: .sequentiallyConsistent)
            if epoch != seen {
                seen = epoch
                lock.lock()
                let retired = recheckBatch(from: position, observers: &watching)
                batchAcked = epoch
                if waiters > 0 { lock.broadcast() }
                lock.unlock()
                for box in retired { box.release() }  // outside the lock
            }
            let entry = entries[position]
            guard !entry.dropped else { continue }
            let lateness = max(0, BootClock.now() - entry.event.due)
            for observer in watching {
                invoke(entry.event, lateness: lateness, callback: observer.callback, context: observer.context,
                       box: observer.box)
            }
            invoke(entry.event, lateness: lateness, callback: entry.callback, context: entry.context,
                   box: entry.box?.takeUnretainedValue())
            delivered += 1
        }
        batchSignals.claim.store(0, ordering: .sequentiallyConsistent)
        for position in 0..<batch.count {
            entries[position].box?.release()  // outside the lock
            entries[position].box = nil
        }
        watching = []

        lock.lock()
        batchOut = false
        batchAcked = batchSignals.epoch.load(ordering: .sequentiallyConsistent)
        batch.removeAll()
        if waiters > 0 { lock.broadcast() }
        return delivered
    }

    /// Moves up to `batchLimit` queued events due by `limit`, and before any
    /// timer event, into `batch`, with their timers' handlers; drops those of
    /// freed timers and those nobody wants. Each timer is looked up once.
    /// The heap does not change meanwhile, so its first live deadline bounds
    /// the whole batch. Lock held.
    private func claimBatch(until limit: Int64) {
        dropStaleTops(dueBy: limit)
        let bound = min(limit, heap.top?.deadline ?? .max)
        let anyObserver = !observers.isEmpty
        while batch.count < Self.batchLimit, let head = pending.first, head.time <= bound {
            _ = pending.removeFirst()
            guard let index = slots.liveIndex(head.slot, generation: head.generation) else { continue }
            let slot = slots[index]
            let kind = head.kind
            let toHandler = slot.pointee.wants(kind)
            guard toHandler || anyObserver else { continue }
            batch.append(BatchEntry(
                event: head.engineEvent(kind, of: index, in: slots), callback: toHandler ? slot.pointee.callback : nil,
                context: slot.pointee.context, box: toHandler ? retainedSwiftHandler(of: slot.pointee) : nil),
                slot: index)
        }
    }

    /// Brings the rest of the batch up to date after a caller changed
    /// something: drops entries of freed timers (or all, once closed), takes
    /// each timer's current handler, and the current observers. Returns the
    /// Swift handlers it let go, for release outside the lock. Lock held.
    private func recheckBatch(from start: Int, observers watching: inout [Observer]) -> [Unmanaged<HandlerBox>] {
        var retired: [Unmanaged<HandlerBox>] = []
        watching = closed ? [] : observers
        let entries = batch.entries
        for position in start..<batch.count where !entries[position].dropped {
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

    /// Tells a batch out for delivery that something it holds changed: timer
    /// `handle` (freed, or its handler set), or for nil everything (observers,
    /// close). Returns the epoch to pass to `waitForBatch`, or nil if no batch
    /// holds the timer. Call while the timer's handle is still live. Lock held.
    func bumpBatchEpoch(for handle: UInt64?) -> UInt64? {
        guard batchOut else { return nil }
        if let handle, !batch.holds(handle) { return nil }
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

    /// The slot's Swift handler with one more reference, to release when
    /// done with it, if it has one. Lock held.
    @inline(__always)
    func retainedSwiftHandler(of slot: TimerSlot) -> Unmanaged<HandlerBox>? {
        guard slot.flags.contains(.swiftHandler), let context = slot.context else { return nil }
        return Unmanaged<HandlerBox>.fromOpaque(context).retain()
    }
}
