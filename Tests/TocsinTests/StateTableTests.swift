import Testing
import Tocsin

/// Every operation from every state: allowed ones move the timer on, the
/// others fail with `.wrongState` and change nothing.
@Suite struct StateTableTests {
    enum Operation: CaseIterable {
        case start, suspend, resume, cancel, lap
    }

    /// The state each operation leads to, or nil where it is not allowed.
    static func expected(_ operation: Operation, from state: TimerState) -> TimerState? {
        switch (operation, state) {
        case (.start, .idle), (.start, .finished), (.start, .canceled): .running
        case (.suspend, .running): .suspended
        case (.resume, .suspended): .running
        case (.cancel, .running), (.cancel, .suspended): .canceled
        case (.lap, .running), (.lap, .suspended): state
        default: nil
        }
    }

    /// A countdown brought into `state` on a manual clock.
    static func timer(in state: TimerState, rig: borrowing ManualRig) throws -> TimerID {
        let timer = try rig.countdown(.seconds(10))
        switch state {
        case .idle: break
        case .running: try rig.engine.start(timer)
        case .suspended: try rig.engine.start(timer); try rig.engine.suspend(timer)
        case .finished: try rig.engine.start(timer); try rig.advance(.seconds(10))
        case .canceled: try rig.engine.start(timer); try rig.engine.cancel(timer)
        }
        try rig.advance(.zero)
        #expect(try rig.engine.state(of: timer) == state)
        return timer
    }

    static func perform(_ operation: Operation, _ timer: TimerID, on engine: TimerEngine) throws(TocsinError) {
        switch operation {
        case .start: try engine.start(timer)
        case .suspend: try engine.suspend(timer)
        case .resume: try engine.resume(timer)
        case .cancel: try engine.cancel(timer)
        case .lap: _ = try engine.lap(timer)
        }
    }

    @Test(arguments: Operation.allCases, TimerState.allCases)
    func transition(operation: Operation, from state: TimerState) throws {
        let rig = try ManualRig()
        let timer = try Self.timer(in: state, rig: rig)
        try rig.advance(.seconds(1))
        let elapsedBefore = try rig.engine.elapsed(of: timer)
        rig.recorder.clear()
        if let target = Self.expected(operation, from: state) {
            try Self.perform(operation, timer, on: rig.engine)
            #expect(try rig.engine.state(of: timer) == target)
            try rig.advance(.zero)
            // Every state change is a STATE event, delivered later, never inside the call.
            #expect(rig.recorder.summary == (target == state ? [] : ["state \(target)"]))
        } else {
            #expect(expectError(.wrongState) { () throws(TocsinError) in try Self.perform(operation, timer, on: rig.engine) })
            #expect(try rig.engine.state(of: timer) == state)
            #expect(try rig.engine.elapsed(of: timer) == elapsedBefore)
            try rig.advance(.zero)
            #expect(rig.recorder.summary == [])
        }
    }

    @Test func eventsAreNeverDeliveredInsideTheCallThatCausedThem() throws {
        let rig = try ManualRig()
        let timer = try rig.countdown(.seconds(5))
        try rig.engine.start(timer)
        try rig.engine.suspend(timer)
        try rig.engine.resume(timer)
        try rig.engine.cancel(timer)
        #expect(rig.recorder.all.isEmpty)
        #expect(try rig.advance(.zero) == 4)
        #expect(rig.recorder.summary == ["state running", "state suspended", "state running", "state canceled"])
    }
}
