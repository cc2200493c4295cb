import Synchronization
import Testing
import Tocsin

@Suite struct OrderingTests {
    @Test func equalDeadlinesFireInStartOrder() throws {
        let rig = try ManualRig()
        let timers = try (0..<20).map { _ in try rig.countdown(.seconds(1)) }
        for timer in timers.reversed() { try rig.engine.start(timer) }
        try rig.advance(.seconds(1))
        let finishes = rig.recorder.all.filter { $0.kind == .finish }.map(\.timer)
        #expect(finishes == timers.reversed())
    }

    @Test func eventsComeInDueTimeOrderAcrossTimers() throws {
        let rig = try ManualRig()
        let durations = [7, 3, 9, 1, 5, 2, 8, 4, 6]
        let timers = try durations.map { try rig.countdown(.seconds($0)) }
        for timer in timers { try rig.engine.start(timer) }
        try rig.advance(.seconds(10))
        let finished = rig.recorder.all.filter { $0.kind == .finish }.map(\.elapsed)
        #expect(finished == durations.sorted().map { .seconds($0) })
    }

    @Test func cancelFromACallbackSuppressesAFinishDueAtTheSameInstant() throws {
        let rig = try ManualRig()
        let engine = rig.engine
        let first = try engine.countdown(.seconds(1))
        let second = try rig.countdown(.seconds(1))
        try engine.setHandler(for: first) { event in
            if event.kind == .finish { try? engine.cancel(second) }
        }
        try engine.start(first)
        try engine.start(second)
        try rig.advance(.seconds(1))
        #expect(rig.recorder.summary == ["state running", "state canceled"])
        #expect(try engine.state(of: second) == .canceled)
    }

    @Test func timersCreatedInsideACallbackStartFromTheEventsDueTime() throws {
        let rig = try ManualRig()
        let engine = rig.engine
        let created = Mutex<TimerID?>(nil)
        let recorder = rig.recorder
        let parent = try engine.countdown(.seconds(2))
        try engine.setHandler(for: parent) { event in
            guard event.kind == .finish, let child = try? engine.countdown(.seconds(3)) else { return }
            try? engine.setHandler(for: child, recorder.handler)
            try? engine.start(child)
            created.withLock { $0 = child }
        }
        try engine.start(parent)
        try rig.advance(.seconds(10))  // child: 2 s + 3 s, inside the same advance
        let child = try #require(created.withLock { $0 })
        #expect(rig.recorder.summary == ["state running", "finish", "state finished"])
        #expect(try engine.state(of: child) == .finished)
        #expect(try engine.now() == .seconds(10))
    }

    @Test func freeingItsOwnTimerInsideTheCallbackStopsFurtherEvents() throws {
        let rig = try ManualRig()
        let engine = rig.engine
        let count = Mutex(0)
        let watch = try engine.stopwatch()
        try engine.setTickInterval(.seconds(1), for: watch)
        try engine.setHandler(for: watch) { event in
            guard event.kind == .tick else { return }
            count.withLock { $0 += 1 }
            try? engine.free(watch)
        }
        try engine.start(watch)
        try rig.advance(.seconds(10))
        #expect(count.withLock { $0 } == 1)
        #expect(expectError(.noSuchTimer) { () throws(TocsinError) in try engine.state(of: watch) })
    }

    @Test func closingTheEngineInsideACallbackStopsDeliveryAndTearsDown() throws {
        let engine = try TimerEngine(delivery: .manualClock)
        let recorder = Recorder()
        for _ in 0..<3 {
            let timer = try engine.countdown(.seconds(1))
            try engine.setHandler(for: timer) { event in
                recorder.handler(event)
                if event.kind == .finish { engine.close() }
            }
            try engine.start(timer)
        }
        _ = try engine.advance(by: .seconds(1))
        #expect(recorder.summary == ["state running", "state running", "state running", "finish"])
        #expect(expectError(.closed) { () throws(TocsinError) in try engine.advance(by: .seconds(1)) })
    }

    @Test func advanceFromInsideACallbackIsRefused() throws {
        let engine = try TimerEngine(delivery: .manualClock)
        defer { engine.close() }
        let result = Mutex<TocsinError?>(nil)
        let timer = try engine.countdown(.seconds(1))
        try engine.setHandler(for: timer) { event in
            guard event.kind == .finish else { return }
            do throws(TocsinError) { _ = try engine.advance(by: .seconds(1)) } catch { result.withLock { $0 = error } }
        }
        try engine.start(timer)
        _ = try engine.advance(by: .seconds(2))
        #expect(result.withLock { $0 } == .wrongState)
    }

    @Test func eventsOfAFreedTimerAreDropped() throws {
        let rig = try ManualRig()
        let timer = try rig.countdown(.seconds(1))
        try rig.engine.start(timer)
        try rig.engine.free(timer)
        #expect(try rig.advance(.seconds(2)) == 0)
        #expect(rig.recorder.all.isEmpty)
    }

    @Test func aFreedTimersQueuedEventsDoNotReachTheTimerThatReusesItsSlot() throws {
        let rig = try ManualRig()
        let first = try rig.countdown(.seconds(1))
        try rig.engine.start(first)  // queues STATE(running) for `first`
        try rig.engine.free(first)
        let second = try rig.countdown(.seconds(5))  // the same slot, the next generation
        #expect(second.rawValue & 0xFF_FFFF == first.rawValue & 0xFF_FFFF)
        #expect(try rig.advance(.seconds(2)) == 0)
        #expect(rig.recorder.all.isEmpty)
    }

    @Test func eventsWithoutAHandlerAreDroppedButTimeStillRuns() throws {
        let rig = try ManualRig()
        let timer = try rig.engine.countdown(.seconds(1))
        try rig.engine.start(timer)
        #expect(try rig.advance(.seconds(2)) == 0)
        #expect(try rig.engine.state(of: timer) == .finished)
    }

    @Test func observersSeeEveryTimerBeforeItsOwnHandler() throws {
        let rig = try ManualRig()
        let observed = Recorder()
        let order = Mutex<[String]>([])
        let observer = try rig.engine.addObserver { event in
            observed.handler(event)
            order.withLock { $0.append("observer") }
        }
        let quiet = try rig.engine.countdown(.seconds(1))
        let loud = try rig.engine.countdown(.seconds(2))
        try rig.engine.setHandler(for: loud) { _ in order.withLock { $0.append("own") } }
        try rig.engine.start(quiet)
        try rig.engine.start(loud)
        try rig.advance(.seconds(1))
        #expect(observed.summary == ["state running", "state running", "finish", "state finished"])
        #expect(order.withLock { $0 } == ["observer", "observer", "own", "observer", "observer"])
        #expect(try rig.engine.removeObserver(observer))
        #expect(try !rig.engine.removeObserver(observer))  // unknown now: nothing removed
        try rig.advance(.seconds(1))
        #expect(observed.all.count == 4)
    }

    @Test func manyTimersStayInOrderThroughTheHeap() throws {
        let rig = try ManualRig()
        var generator = SplitMix(seed: 42)
        var expected: [Int] = []
        for _ in 0..<5_000 {
            let millis = Int(generator.next() % 10_000) + 1
            expected.append(millis)
            try rig.engine.start(try rig.countdown(.milliseconds(millis)))
        }
        try rig.advance(.seconds(11))
        let finishes = rig.recorder.all.filter { $0.kind == .finish }.map(\.elapsed)
        #expect(finishes == expected.sorted().map { .milliseconds($0) })
    }
}

/// A small seeded generator, so randomized tests are reproducible.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
