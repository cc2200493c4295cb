import Testing
@testable import Tocsin

/// `adjust` through the Swift API (the rules in full are the C tests'
/// Tests/c/test_adjust.c and the model test's).
@Suite struct AdjustTests {
    @Test func aRunningCountdownGetsLongerAndShorterExactly() throws {
        let rig = try ManualRig()
        let timer = try rig.countdown(.seconds(10))
        try rig.engine.start(timer)
        try rig.engine.advance(by: .seconds(4))
        try rig.engine.adjust(timer, by: .seconds(5))
        #expect(try rig.engine.remaining(of: timer) == .seconds(11))
        try rig.engine.adjust(timer, by: .milliseconds(-10_500))
        #expect(try rig.engine.remaining(of: timer) == .milliseconds(500))
        try rig.engine.advance(by: .milliseconds(499))
        #expect(try rig.engine.state(of: timer) == .running)
        try rig.engine.advance(by: .milliseconds(1))
        #expect(rig.recorder.summary == ["state running", "state running", "state running", "finish", "state finished"])
    }

    @Test func aFinishedCountdownRunsAgainAndRestartsFromItsOriginalDuration() throws {
        let rig = try ManualRig()
        let timer = try rig.countdown(.seconds(3))
        try rig.engine.start(timer)
        try rig.engine.advance(by: .seconds(3))
        #expect(throws: TocsinError.invalidArgument) { try rig.engine.adjust(timer, by: .seconds(-1)) }
        try rig.engine.adjust(timer, by: .seconds(60))
        #expect(try rig.engine.elapsed(of: timer) == .seconds(3))
        try rig.engine.advance(by: .seconds(60))
        #expect(try rig.engine.state(of: timer) == .finished)
        try rig.engine.start(timer)
        #expect(try rig.engine.duration(of: timer) == .seconds(3))
    }

    @Test func signedConversionsKeepTheirLimits() {
        #expect(Nanos.from(signed: .seconds(-2)) == -2_000_000_000)
        #expect(Nanos.from(signed: .zero) == 0)
        #expect(Nanos.from(signedSeconds: -1.5) == -1_500_000_000)
        #expect(Nanos.from(signedSeconds: .nan) == nil)
        #expect(Nanos.from(signedSeconds: -.infinity) == nil)
        #expect(Nanos.from(signedSeconds: -Nanos.maxSeconds) == -Nanos.max)
        #expect(Nanos.from(signedSeconds: -Nanos.maxSeconds * 2) == nil)
    }
}
