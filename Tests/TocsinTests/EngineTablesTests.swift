import Testing
@testable import Tocsin

/// How the engine uses memory and the kernel timer, seen from inside (debug
/// builds): properties no public call can observe, only their cost.
@Suite struct EngineTablesTests {
    @Test func theFirstThousandTimersNeverGrowTheTables() throws {
        let engine = try TimerEngine(delivery: .manualClock)
        defer { engine.close() }
        let reserved = engine.locked { $0.slots.allocatedBytes }
        #expect(reserved >= 1024 * MemoryLayout<TimerSlot>.stride)
        #expect(engine.locked { $0.heap.allocatedBytes } >= 1024 * MemoryLayout<HeapEntry>.stride)
        for _ in 0..<1024 {
            try engine.start(try engine.countdown(.seconds(1)))
        }
        #expect(engine.locked { $0.slots.allocatedBytes } == reserved)
        try engine.start(try engine.countdown(.seconds(1)))
        #expect(engine.locked { $0.slots.allocatedBytes } > reserved)
    }

    @Test func tableEntriesKeepTheirSizes() {
        // What "bytes per timer" rests on: a slot, a heap entry, a queued event.
        #expect(MemoryLayout<TimerSlot>.stride == 48)
        #expect(MemoryLayout<HeapEntry>.stride == 16)
        #expect(MemoryLayout<PendingEvent>.stride == 24)
    }

    @Test func aStartOnTheEngineThreadSetsTheKernelTimerOnce() throws {
        let engine = try TimerEngine(delivery: .engineThread)
        defer { engine.close() }
        let timer = try engine.countdown(.seconds(60))
        try engine.setHandler(for: timer) { _ in }  // wants STATE: the start queues one
        let before = engine.locked { $0.kernelTimerArmsByCalls }
        try engine.start(timer)
        // One system call: for the gathered STATE event, which falls before
        // the 60 s deadline (it used to be armed for the deadline first).
        #expect(engine.locked { $0.kernelTimerArmsByCalls } - before == 1)
    }

    @Test func cancellingTimeoutsInDeadlineOrderMakesNoSystemCall() throws {
        let engine = try TimerEngine(delivery: .polled)
        defer { engine.close() }
        let timeouts = try (0..<100).map { _ in try engine.countdown(.seconds(60)) }
        for timeout in timeouts { try engine.start(timeout) }
        let before = engine.locked { ($0.kernelTimerArmsByCalls, $0.kernelTimerRearms) }
        for timeout in timeouts.dropLast() { try engine.cancel(timeout) }  // each the earliest
        let after = engine.locked { ($0.kernelTimerArmsByCalls, $0.kernelTimerRearms) }
        #expect(after == before)
        try engine.cancel(timeouts.last!)  // the last armed timer: disarmed, no wakeup left
        #expect(engine.locked { $0.kernelTimerRearms } == before.1 + 1)
    }
}

extension TimerEngine {
    fileprivate func locked<T>(_ body: (EngineCore) -> T) -> T {
        core.withLock { body($0) }
    }
}
