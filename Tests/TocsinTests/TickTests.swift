import Testing
import Tocsin

@Suite struct TickTests {
    @Test func tickKFallsAtKTimesTheIntervalAndTheLastIsFoldedIntoFinish() throws {
        let rig = try ManualRig()
        let timer = try rig.countdown(.seconds(3), tick: .seconds(1))
        try rig.engine.start(timer)
        try rig.advance(.milliseconds(999))
        #expect(rig.recorder.summary == ["state running"])
        try rig.advance(.milliseconds(1))
        try rig.advance(.seconds(5))
        // Tick 3 would coincide with the finish: it is folded into FINISH.
        #expect(rig.recorder.summary == ["state running", "tick 1", "tick 2", "finish", "state finished"])
        let ticks = rig.recorder.all.filter { $0.kind == .tick }
        #expect(ticks.map(\.elapsed) == [.seconds(1), .seconds(2)])
        #expect(ticks.map(\.remaining) == [.seconds(2), .seconds(1)])
        #expect(ticks.allSatisfy { $0.lateness == .zero && $0.state == .running })
    }

    @Test func everyTickIsDeliveredWithItsOwnNumberWhenTimeJumps() throws {
        let rig = try ManualRig()
        let watch = try rig.stopwatch(tick: .milliseconds(100))
        try rig.engine.start(watch)
        #expect(try rig.advance(.seconds(10)) == 101)  // state + 100 ticks, none coalesced
        let ticks = rig.recorder.all.filter { $0.kind == .tick }
        #expect(ticks.map(\.tick) == Array(1...100))
        #expect(ticks.map(\.elapsed) == (1...100).map { .milliseconds(100 * $0) })
    }

    @Test func theClockReadsEachTicksDueTimeWhileItIsDelivered() throws {
        let rig = try ManualRig()
        let engine = rig.engine
        let seen = Recorder()
        let watch = try engine.stopwatch()
        try engine.setTickInterval(.seconds(2), for: watch)
        try engine.setHandler(for: watch) { event in
            guard event.kind == .tick, let now = try? engine.now() else { return }
            seen.handler(TimerEvent(kind: .tick, state: .running, timer: watch, elapsed: now,
                                    remaining: nil, tick: event.tick, lateness: .zero))
        }
        try engine.start(watch)
        try engine.advance(by: .seconds(7))
        #expect(seen.all.map(\.elapsed) == [.seconds(2), .seconds(4), .seconds(6)])
        #expect(try engine.now() == .seconds(7))
    }

    @Test func intervalLongerThanTheCountdownGivesNoTicks() throws {
        let rig = try ManualRig()
        let timer = try rig.countdown(.seconds(1), tick: .seconds(5))
        try rig.engine.start(timer)
        try rig.advance(.seconds(10))
        #expect(rig.recorder.summary == ["state running", "finish", "state finished"])
    }

    @Test func ticksCountRunningTimeAcrossSuspend() throws {
        let rig = try ManualRig()
        let timer = try rig.countdown(.seconds(10), tick: .seconds(1))
        try rig.engine.start(timer)
        try rig.advance(.milliseconds(1500))
        try rig.engine.suspend(timer)
        try rig.advance(.seconds(60))
        try rig.engine.resume(timer)
        try rig.advance(.milliseconds(499))
        #expect(rig.recorder.summary == ["state running", "tick 1", "state suspended", "state running"])
        try rig.advance(.milliseconds(1))
        #expect(rig.recorder.all.last?.summary == "tick 2")
        #expect(rig.recorder.all.last?.elapsed == .seconds(2))
    }

    @Test func changingTheIntervalWhileRunningCarriesOnFromRunningTime() throws {
        let rig = try ManualRig()
        let watch = try rig.stopwatch(tick: .seconds(1))
        try rig.engine.start(watch)
        try rig.advance(.milliseconds(2500))
        try rig.engine.setTickInterval(.seconds(2), for: watch)
        try rig.advance(.seconds(4))
        let ticks = rig.recorder.all.filter { $0.kind == .tick }
        // 1 s ticks 1, 2; then 2 s ticks from running time 2.5 s: tick 2 at 4 s, tick 3 at 6 s.
        #expect(ticks.map(\.tick) == [1, 2, 2, 3])
        #expect(ticks.map(\.elapsed) == [.seconds(1), .seconds(2), .seconds(4), .seconds(6)])
        try rig.engine.setTickInterval(nil, for: watch)
        rig.recorder.clear()
        try rig.advance(.seconds(10))
        #expect(rig.recorder.all.isEmpty)
    }

    @Test func cancelStopsTicksAndTheRunsLastEventIsCanceled() throws {
        let rig = try ManualRig()
        let timer = try rig.countdown(.seconds(10), tick: .seconds(1))
        try rig.engine.start(timer)
        try rig.advance(.seconds(2))
        try rig.engine.cancel(timer)
        try rig.advance(.seconds(20))
        #expect(rig.recorder.summary == ["state running", "tick 1", "tick 2", "state canceled"])
    }
}

@Suite struct UnheardTickTests {
    @Test func ticksNobodyListensToAreSkippedAtOnceAndNumberingCarriesOn() throws {
        let engine = try TimerEngine(delivery: .manualClock)
        defer { engine.close() }
        let watch = try engine.stopwatch()
        try engine.setTickInterval(.nanoseconds(1), for: watch)
        try engine.start(watch)
        let clock = ContinuousClock()
        let began = clock.now
        #expect(try engine.advance(by: .seconds(3_155_760_000)) == 0)  // 100 years of 1 ns ticks, unheard
        #expect(clock.now - began < .seconds(5))
        let recorder = Recorder()
        try engine.setTickInterval(.seconds(1), for: watch)
        try engine.setHandler(for: watch, recorder.handler)
        try engine.advance(by: .seconds(2))
        #expect(recorder.all.map(\.tick) == [3_155_760_001, 3_155_760_002])
    }
}
