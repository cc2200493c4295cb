import Testing
import Tocsin

@Suite struct CountdownTests {
    @Test func finishesExactlyAtItsDurationNeverEarly() throws {
        let rig = try ManualRig()
        let timer = try rig.countdown(.seconds(3))
        try rig.engine.start(timer)
        try rig.advance(.seconds(3) - .nanoseconds(1))
        #expect(try rig.engine.state(of: timer) == .running)
        #expect(try rig.engine.remaining(of: timer) == .nanoseconds(1))
        #expect(rig.recorder.summary == ["state running"])
        try rig.advance(.nanoseconds(1))
        #expect(rig.recorder.summary == ["state running", "finish", "state finished"])
        let finish = rig.recorder.all[1]
        #expect(finish.elapsed == .seconds(3))
        #expect(finish.remaining == .zero)
        #expect(finish.lateness == .zero)
        #expect(try rig.engine.remaining(of: timer) == .zero)
        #expect(try rig.engine.elapsed(of: timer) == .seconds(3))
    }

    @Test func finishIsDeliveredOncePerRunEvenAfterALongAdvance() throws {
        let rig = try ManualRig()
        let timer = try rig.countdown(.seconds(1))
        try rig.engine.start(timer)
        try rig.advance(.seconds(100))
        try rig.advance(.seconds(100))
        #expect(rig.recorder.summary.filter { $0 == "finish" }.count == 1)
    }

    @Test func restartAfterFinishOrCancelRunsTheFullDurationAgain() throws {
        let rig = try ManualRig()
        let timer = try rig.countdown(.seconds(2))
        try rig.engine.start(timer)
        try rig.advance(.seconds(5))
        try rig.engine.start(timer)
        #expect(try rig.engine.remaining(of: timer) == .seconds(2))
        try rig.advance(.seconds(1))
        try rig.engine.cancel(timer)
        #expect(try rig.engine.elapsed(of: timer) == .seconds(1))
        try rig.engine.start(timer)
        #expect(try rig.engine.elapsed(of: timer) == .zero)
        try rig.advance(.seconds(2))
        #expect(rig.recorder.summary == [
            "state running", "finish", "state finished",
            "state running", "state canceled",
            "state running", "finish", "state finished",
        ])
    }

    @Test func idleCountdownReportsItsFullDuration() throws {
        let rig = try ManualRig()
        let timer = try rig.countdown(.milliseconds(1500))
        #expect(try rig.engine.remaining(of: timer) == .milliseconds(1500))
        #expect(try rig.engine.duration(of: timer) == .milliseconds(1500))
        #expect(try rig.engine.elapsed(of: timer) == .zero)
    }

    @Test func stateEventsCarryTheTimeAtTheChange() throws {
        let rig = try ManualRig()
        let timer = try rig.countdown(.seconds(10))
        try rig.engine.start(timer)
        try rig.advance(.seconds(4))
        try rig.engine.suspend(timer)
        try rig.advance(.zero)
        let suspended = try #require(rig.recorder.all.last)
        #expect(suspended.state == .suspended)
        #expect(suspended.elapsed == .seconds(4))
        #expect(suspended.remaining == .seconds(6))
    }

    @Test func stopwatchCountsUpNeverFinishesAndHasNoRemaining() throws {
        let rig = try ManualRig()
        let watch = try rig.stopwatch()
        try rig.engine.start(watch)
        try rig.advance(.seconds(1_000_000))
        #expect(try rig.engine.state(of: watch) == .running)
        #expect(try rig.engine.elapsed(of: watch) == .seconds(1_000_000))
        #expect(try rig.engine.remaining(of: watch) == nil)
        #expect(try rig.engine.duration(of: watch) == nil)
        try rig.engine.cancel(watch)
        try rig.advance(.zero)
        #expect(rig.recorder.summary == ["state running", "state canceled"])
        #expect(rig.recorder.all.allSatisfy { $0.remaining == nil })
    }

    @Test func lapsMeasureTheirOwnLengthOnEitherKind() throws {
        let rig = try ManualRig()
        let watch = try rig.stopwatch()
        let countdown = try rig.countdown(.seconds(60))
        for timer in [watch, countdown] {
            try rig.engine.start(timer)
        }
        try rig.advance(.seconds(3))
        #expect(try rig.engine.lap(watch) == .seconds(3))
        #expect(try rig.engine.lap(countdown) == .seconds(3))
        try rig.advance(.milliseconds(2500))
        #expect(try rig.engine.lap(watch) == .milliseconds(2500))
        try rig.engine.suspend(watch)
        try rig.advance(.seconds(50))
        #expect(try rig.engine.lap(watch) == .zero)  // suspended time is not running time
        #expect(try rig.engine.laps(of: watch) == [.seconds(3), .milliseconds(2500), .zero])
        try rig.engine.cancel(watch)
        #expect(expectError(.wrongState) { () throws(TocsinError) in try rig.engine.lap(watch) })
        try rig.engine.start(watch)
        #expect(try rig.engine.laps(of: watch) == [])
    }
}
