import Testing
import Tocsin

@Suite struct SuspendResumeTests {
    @Test func remainingTimeIsExactToTheNanosecondAcrossManyCycles() throws {
        let rig = try ManualRig()
        let timer = try rig.countdown(.seconds(10))
        try rig.engine.start(timer)
        var running: Duration = .zero
        for cycle in 1...50 {
            let step = Duration.nanoseconds(123_456_789 + cycle)
            try rig.advance(step)
            running += step
            try rig.engine.suspend(timer)
            try rig.advance(.seconds(cycle))  // suspended time does not count
            #expect(try rig.engine.remaining(of: timer) == .seconds(10) - running)
            try rig.engine.resume(timer)
        }
        let left = try #require(try rig.engine.remaining(of: timer))
        try rig.advance(left - .nanoseconds(1))
        #expect(try rig.engine.state(of: timer) == .running)
        try rig.advance(.nanoseconds(1))
        #expect(try rig.engine.state(of: timer) == .finished)
    }

    @Test func resumeKeepsTheDeadlineRelativeToRunningTime() throws {
        let rig = try ManualRig()
        let timer = try rig.countdown(.seconds(5))
        try rig.engine.start(timer)
        try rig.advance(.seconds(2))
        try rig.engine.suspend(timer)
        try rig.advance(.seconds(30))
        try rig.engine.resume(timer)
        try rig.advance(.seconds(3) - .nanoseconds(1))
        #expect(!rig.recorder.summary.contains("finish"))
        try rig.advance(.nanoseconds(1))
        #expect(rig.recorder.summary.suffix(2) == ["finish", "state finished"])
        #expect(try rig.engine.now() == .seconds(35))
    }

    @Test func cancelWhileSuspendedWorks() throws {
        let rig = try ManualRig()
        let timer = try rig.countdown(.seconds(5))
        try rig.engine.start(timer)
        try rig.engine.suspend(timer)
        try rig.engine.cancel(timer)
        try rig.advance(.seconds(10))
        #expect(rig.recorder.summary == ["state running", "state suspended", "state canceled"])
        try rig.engine.free(timer)
    }
}
