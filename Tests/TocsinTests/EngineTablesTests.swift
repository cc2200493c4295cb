import Glibc
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

/// Table pages faulted in ahead by the engine's thread (`EngineCore+Prefault`).
@Suite struct PrefaultTests {
    /// Pages of `range` resident now, as `mincore` sees them.
    private func residentPages(_ range: UnsafeMutableRawBufferPointer) -> (resident: Int, total: Int) {
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let start = (Int(bitPattern: range.baseAddress) + page - 1) / page * page  // whole pages only
        let end = (Int(bitPattern: range.baseAddress) + range.count) / page * page
        guard end > start else { return (0, 0) }
        var flags = [UInt8](repeating: 0, count: (end - start) / page)
        #expect(mincore(UnsafeMutableRawPointer(bitPattern: start), end - start, &flags) == 0)
        return (flags.filter { $0 & 1 != 0 }.count, flags.count)
    }

    @Test func theEngineThreadFaultsInTheNextSlotsAndHeapEntries() throws {
        let engine = try TimerEngine(delivery: .engineThread)
        defer { engine.close() }
        let count = 3000  // past the first table growth (1024 slots)
        for _ in 0..<count {
            _ = try engine.core.startCountdown(nanoseconds: 60_000_000_000, events: [], callback: nil, context: nil)
        }
        // The engine thread serves the request soon after it is made.
        var ahead = (slots: (resident: 0, total: 0), heap: (resident: 0, total: 0))
        for _ in 0..<200 {
            ahead = engine.core.withLock { core in
                (residentPages(core.slots.bytesAfterUsed(EngineCore.prefaultWindow / 2)),
                 residentPages(core.heap.bytesAfterUsed(Int(EngineCore.prefaultWindow / 2))))
            }
            if ahead.slots.total > 0, ahead.slots.resident == ahead.slots.total, ahead.heap.resident == ahead.heap.total {
                break
            }
            usleep(10_000)
        }
        #expect(engine.core.withLock { $0.prefaultRequests } >= 2)
        #expect(ahead.slots.total >= 10 && ahead.slots.resident == ahead.slots.total)
        #expect(ahead.heap.total >= 3 && ahead.heap.resident == ahead.heap.total)
    }

    @Test func smallEnginesAndOtherModesNeverAsk() throws {
        for delivery in [TimerEngine.Delivery.engineThread, .polled, .manualClock] {
            let engine = try TimerEngine(delivery: delivery)
            defer { engine.close() }
            let count = delivery == .engineThread ? Int(EngineCore.prefaultStart) - 1 : 5000
            for _ in 0..<count { try engine.start(try engine.countdown(.seconds(60))) }
            #expect(engine.core.withLock { $0.prefaultRequests } == 0)
        }
    }
}
