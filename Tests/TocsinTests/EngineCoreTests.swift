import CTocsin
import Testing
@testable import Tocsin

/// The engine's core driven directly, step by step, with no lock, no thread
/// and no engine around it: what a delivery round and the callers' changes
/// do to a batch of queued STATE events.
@Suite struct EngineCoreTests {
    /// A manual-clock core with `count` countdowns of 1 s, each with a C
    /// callback (the callback itself is never called here).
    static func core(timers count: Int) throws -> (EngineCore, [Int32]) {
        var core = try EngineCore(delivery: .manualClock, kernel: nil, tag: 7)
        var indices: [Int32] = []
        for _ in 0..<count {
            let index = try core.newSlot(duration: 1_000_000_000)
            _ = core.installHandler(index, callback: { _, _, _ in }, context: nil, isSwift: false)
            indices.append(index)
        }
        return (core, indices)
    }

    static func release(_ core: inout EngineCore) {
        _ = core.teardown()
        core.batch.deallocate()
    }

    @Test func aBatchTakesQueuedEventsInOrderAndStopsAtTheHeap() throws {
        var (core, timers) = try Self.core(timers: 3)
        defer { Self.release(&core) }
        for index in timers { try core.start(index, at: 0) }
        let queuedFirst = core.pendingIsNext(until: 0)
        #expect(queuedFirst)
        let claimed = core.claimBatch(until: 0)
        #expect(claimed == 3)
        #expect((0..<3).map { core.batch.entries[$0].event.handle } == timers.map { core.slots.handle(of: $0) })
        #expect((0..<3).allSatisfy { !core.batch.entries[$0].dropped && core.batch.entries[$0].callback != nil })
        #expect(core.batchOut)
        core.retireBatch()
        let queuedNext = core.pendingIsNext(until: .max)
        #expect(!queuedNext)  // the heap's finishes come next
        let early = core.takeTimerEvent(until: 999_999_999)
        #expect(early == nil)
        let due = core.takeTimerEvent(until: 1_000_000_000)
        #expect(due?.kind == .finish)
    }

    @Test func freeingATimerInTheBatchDropsItsEntriesAtTheRecheck() throws {
        var (core, timers) = try Self.core(timers: 2)
        defer { Self.release(&core) }
        try core.start(timers[0], at: 0)
        try core.start(timers[1], at: 0)
        try core.suspend(timers[1])
        let claimed = core.claimBatch(until: 0)
        #expect(claimed == 3)
        let other = core.slots.handle(of: timers[0])
        let freed = core.slots.handle(of: timers[1])
        let bumped = core.bumpBatchEpoch(for: other)
        #expect(bumped != nil)  // in the batch
        _ = core.free(timers[1])  // bumps the epoch too: its handle was live
        var observers: [Observer] = []
        let retired = core.recheckBatch(from: 1, observers: &observers)
        #expect(retired.isEmpty)  // C callbacks: no Swift handler to release
        #expect(!core.batch.entries[0].dropped)
        #expect(core.batch.entries[1].event.handle == freed && core.batch.entries[1].dropped)
        #expect(core.batch.entries[2].event.handle == freed && core.batch.entries[2].dropped)
        core.retireBatch()
        let afterwards = core.bumpBatchEpoch(for: other)
        #expect(afterwards == nil)  // no batch out
    }

    @Test func aMutedEventIsKeptDroppedUntilAnObserverWantsIt() throws {
        var (core, timers) = try Self.core(timers: 1)
        defer { Self.release(&core) }
        try core.start(timers[0], at: 0)
        core.setEvents([.finish], of: timers[0])  // the queued STATE is no longer wanted
        let claimed = core.claimBatch(until: 0)
        #expect(claimed == 1)
        #expect(core.batch.entries[0].dropped)
        core.observers.append(Observer(id: 1, callback: { _, _, _ in }, context: nil, box: nil))
        var watching: [Observer] = []
        _ = core.recheckBatch(from: 0, observers: &watching)
        #expect(watching.count == 1)
        #expect(!core.batch.entries[0].dropped && core.batch.entries[0].callback == nil)
        core.retireBatch()
    }

    @Test func theHeapKeepsItsOrderThroughEveryChangeAndFindsItsRunnerUp() {
        var heap = DeadlineHeap()
        defer { heap.deallocate() }
        var random = SplitMix(seed: 42)
        var live: [UInt64: Int64] = [:]
        for step in 0..<20_000 {
            switch random.next() % 5 {
            case 4:
                guard let position = heap.runnerUpPosition else { continue }
                let runnerUp = heap[position]
                #expect(runnerUp.deadline == live.filter { $0.key != heap.top!.key }.values.min())
                heap.remove(at: position)
                live[runnerUp.key] = nil
            case 0, 1:
                let entry = HeapEntry(deadline: Int64(random.next() % 1000), key: UInt64(step + 1) << 24)
                let pushed = heap.push(entry)
                #expect(pushed)
                live[entry.key] = entry.deadline
            case 2:
                guard let top = heap.top else { continue }
                #expect(top.deadline == live.values.min())
                heap.removeTop()
                live[top.key] = nil
            default:
                guard let top = heap.top else { continue }
                let later = top.deadline + Int64(random.next() % 100)
                heap.retimeTop(to: later)
                live[top.key] = later
            }
            #expect(heap.checkInvariants())
            #expect(heap.count == live.count)
        }
    }
}
