import Testing
import Tocsin

@Suite struct EventKindsTests {
    @Test func aHandlerGetsOnlyTheKindsItAsksFor() throws {
        let rig = try ManualRig()
        let timer = try rig.countdown(.seconds(3), tick: .seconds(1))
        #expect(try rig.engine.eventKinds(of: timer) == .all)
        try rig.engine.setEventKinds([.tick, .finish], for: timer)
        try rig.engine.start(timer)
        try rig.engine.suspend(timer)
        try rig.engine.resume(timer)
        try rig.advance(.seconds(5))
        #expect(rig.recorder.summary == ["tick 1", "tick 2", "finish"])
        #expect(try rig.engine.eventKinds(of: timer) == [.tick, .finish])
    }

    @Test func observersStillSeeEveryEvent() throws {
        let rig = try ManualRig()
        let watched = Recorder()
        _ = try rig.engine.addObserver(watched.handler)
        let timer = try rig.countdown(.seconds(1))
        try rig.engine.setEventKinds([], for: timer)
        try rig.engine.start(timer)
        try rig.advance(.seconds(2))
        #expect(rig.recorder.summary.isEmpty)
        #expect(watched.summary == ["state running", "finish", "state finished"])
    }

    @Test func bitsOutsideTheKindsAreRejected() throws {
        let rig = try ManualRig()
        let timer = try rig.countdown(.seconds(1))
        #expect(expectError(.invalidArgument) { () throws(TocsinError) in try rig.engine.setEventKinds(.init(rawValue: 1), for: timer) })
        #expect(expectError(.invalidArgument) { () throws(TocsinError) in try rig.engine.setEventKinds(.init(rawValue: 1 << 4), for: timer) })
        #expect(try rig.engine.eventKinds(of: timer) == .all)
        #expect(TimerEvent.Kinds(.finish).rawValue == 8 && TimerEvent.Kinds.all.rawValue == 14)
    }
}
