import Testing
@testable import Tocsin

/// Awake timers, alarms and the simulated machine, on the manual clock.
@Suite struct ClockTests {
    @Test func aSuspendCountsForBootTimersAndNotForAwakeOnes() throws {
        let rig = try ManualRig()
        let boot = try rig.countdown(.seconds(10))
        let awake = try rig.countdown(.seconds(10))
        try rig.engine.setClock(.awake, for: awake)
        #expect(try rig.engine.clock(of: awake) == .awake)
        #expect(try rig.engine.clock(of: boot) == .boot)
        try rig.engine.start(boot)
        try rig.engine.start(awake)
        try rig.advance(.seconds(3))
        rig.recorder.clear()
        try rig.engine.simulateSuspend(for: .seconds(5))
        #expect(try rig.engine.remaining(of: boot) == .seconds(2))
        #expect(try rig.engine.remaining(of: awake) == .seconds(7))
        #expect(try rig.engine.now() == .seconds(8))
        try rig.advance(.seconds(2))
        #expect(try rig.engine.state(of: boot) == .finished)
        #expect(rig.recorder.all.first { $0.kind == .finish }?.lateness == .zero)
        try rig.advance(.milliseconds(4_999))
        #expect(try rig.engine.remaining(of: awake) == .nanoseconds(1_000_000))
        try rig.advance(.milliseconds(1))
        #expect(try rig.engine.state(of: awake) == .finished)
    }

    @Test func whatFellDueDuringASuspendIsDeliveredLateAfterIt() throws {
        let rig = try ManualRig()
        let boot = try rig.countdown(.seconds(2))
        let awake = try rig.countdown(.seconds(2), tick: .milliseconds(500))
        try rig.engine.setClock(.awake, for: awake)
        try rig.engine.start(boot)
        try rig.engine.start(awake)
        try rig.advance(.zero)
        rig.recorder.clear()
        try rig.engine.simulateSuspend(for: .seconds(60))
        let finish = try #require(rig.recorder.all.first { $0.kind == .finish })
        #expect(finish.timer == boot)
        #expect(finish.lateness == .seconds(58))
        #expect(!rig.recorder.all.contains { $0.timer == awake })  // not a tick of it during the suspend
        try rig.advance(.milliseconds(500))
        #expect(rig.recorder.all.filter { $0.timer == awake }.map(\.summary) == ["tick 1"])
    }

    @Test func anAwakeStopwatchLeavesOutSuspendsEvenWhileSuspendedAndResumed() throws {
        let rig = try ManualRig()
        let watch = try rig.stopwatch()
        try rig.engine.setClock(.awake, for: watch)
        try rig.engine.start(watch)
        try rig.advance(.seconds(1))
        try rig.engine.simulateSuspend(for: .seconds(100))
        try rig.engine.suspend(watch)
        try rig.engine.simulateSuspend(for: .seconds(100))
        try rig.engine.resume(watch)
        try rig.advance(.seconds(1))
        #expect(try rig.engine.elapsed(of: watch) == .seconds(2))
    }

    @Test func theClockIsChosenWhileIdle() throws {
        let rig = try ManualRig()
        let timer = try rig.countdown(.seconds(1))
        try rig.engine.start(timer)
        #expect(throws: TocsinError.wrongState) { try rig.engine.setClock(.awake, for: timer) }
        let alarm = try rig.engine.alarm(at: .seconds(10))
        #expect(throws: TocsinError.invalidArgument) { try rig.engine.setClock(.awake, for: alarm) }
        try rig.engine.setClock(.boot, for: alarm)
    }

    @Test func theManualWallClockStartsAtZeroAndMovesWithTheOthers() throws {
        let rig = try ManualRig()
        #expect(try rig.engine.wallClock() == .zero)
        try rig.engine.setWallClock(.seconds(1_000))
        try rig.advance(.seconds(5))
        try rig.engine.simulateSuspend(for: .seconds(5))
        #expect(try rig.engine.wallClock() == .seconds(1_010))
        try rig.engine.setWallClock(.seconds(7))
        #expect(try rig.engine.wallClock() == .seconds(7))
        #expect(try rig.engine.now() == .seconds(10))
        #expect(throws: TocsinError.invalidArgument) { try rig.engine.setWallClock(.seconds(-1)) }
        #expect(throws: TocsinError.invalidArgument) { try rig.engine.simulateSuspend(for: .seconds(-1)) }
    }

    @Test func theTestClockCallsNeedAManualEngine() throws {
        let engine = try TimerEngine(delivery: .polled)
        defer { engine.close() }
        #expect(throws: TocsinError.wrongState) { try engine.setWallClock(.seconds(1)) }
        #expect(throws: TocsinError.wrongState) { try engine.simulateSuspend(for: .seconds(1)) }
        let wall = try engine.wallClock()
        #expect(abs(Nanos.from(signed: wall)! - Clocks.realtime()) < 1_000_000_000)
    }

    // MARK: - Alarms

    /// An alarm for wall time `at`, with the rig's recorder.
    private func alarm(_ rig: borrowing ManualRig, at time: Duration) throws -> TimerID {
        let alarm = try rig.engine.alarm(at: time)
        try rig.engine.setHandler(for: alarm, rig.recorder.handler)
        return alarm
    }

    @Test func anAlarmRingsWhenTheWallClockReachesItsTime() throws {
        let rig = try ManualRig()
        try rig.engine.setWallClock(.seconds(1_000))
        let alarm = try alarm(rig, at: .seconds(1_060))
        #expect(try rig.engine.alarmTime(of: alarm) == .seconds(1_060))
        #expect(try rig.engine.remaining(of: alarm) == .seconds(60))
        try rig.advance(.seconds(10))
        #expect(try rig.engine.remaining(of: alarm) == .seconds(50))  // idle: the time left still shrinks
        try rig.engine.start(alarm)
        try rig.advance(.seconds(49))
        #expect(try rig.engine.elapsed(of: alarm) == .seconds(49))
        #expect(try rig.engine.state(of: alarm) == .running)
        try rig.advance(.seconds(1))
        #expect(try rig.engine.state(of: alarm) == .finished)
        #expect(try rig.engine.wallClock() == .seconds(1_060))
        let finish = try #require(rig.recorder.all.first { $0.kind == .finish })
        #expect(finish.lateness == .zero)
        #expect(finish.elapsed == .seconds(50))
    }

    @Test func settingTheWallClockForwardPastAnAlarmFinishesItLateByTheJump() throws {
        let rig = try ManualRig()
        try rig.engine.setWallClock(.seconds(1_000))
        let alarm = try alarm(rig, at: .seconds(1_060))
        let countdown = try rig.countdown(.seconds(120))
        try rig.engine.start(alarm)
        try rig.engine.start(countdown)
        try rig.advance(.seconds(30))
        try rig.engine.setWallClock(.seconds(4_630))  // an hour on
        #expect(try rig.engine.state(of: alarm) == .finished)
        let finish = try #require(rig.recorder.all.first { $0.kind == .finish })
        #expect(finish.lateness == .seconds(3_600 - 30))
        #expect(finish.elapsed == .seconds(30))
        #expect(try rig.engine.remaining(of: countdown) == .seconds(90))  // the boot clock did not move
    }

    @Test func settingTheWallClockBackDelaysAnAlarm() throws {
        let rig = try ManualRig()
        try rig.engine.setWallClock(.seconds(1_000))
        let alarm = try alarm(rig, at: .seconds(1_060))
        try rig.engine.start(alarm)
        try rig.advance(.seconds(30))
        try rig.engine.setWallClock(.seconds(1_000))
        #expect(try rig.engine.remaining(of: alarm) == .seconds(60))
        #expect(try rig.engine.elapsed(of: alarm) == .seconds(30))
        #expect(try rig.engine.duration(of: alarm) == .seconds(90))
        try rig.advance(.milliseconds(59_999))
        #expect(try rig.engine.state(of: alarm) == .running)
        try rig.advance(.milliseconds(1))
        #expect(try rig.engine.state(of: alarm) == .finished)
    }

    @Test func anAlarmWhoseTimeHasPassedFinishesAtOnceWhenStarted() throws {
        let rig = try ManualRig()
        try rig.engine.setWallClock(.seconds(1_000))
        let alarm = try alarm(rig, at: .seconds(900))
        #expect(try rig.engine.remaining(of: alarm) == .zero)
        try rig.engine.start(alarm)
        try rig.advance(.zero)
        let finish = try #require(rig.recorder.all.first { $0.kind == .finish })
        #expect(finish.lateness == .zero)  // it rang as soon as it was started
        #expect(try rig.engine.state(of: alarm) == .finished)
        // Started again, it aims at the same time: at once again.
        rig.recorder.clear()
        try rig.engine.start(alarm)
        try rig.advance(.zero)
        #expect(rig.recorder.summary == ["state running", "finish", "state finished"])
    }

    @Test func anAlarmRingsAfterASimulatedSuspendThatSleptThroughIt() throws {
        let rig = try ManualRig()
        try rig.engine.setWallClock(.seconds(1_000))
        let alarm = try alarm(rig, at: .seconds(1_010))
        try rig.engine.start(alarm)
        try rig.engine.simulateSuspend(for: .seconds(25))
        let finish = try #require(rig.recorder.all.first { $0.kind == .finish })
        #expect(finish.lateness == .seconds(15))
    }

    @Test func aSuspendedAlarmDoesNotRingAndRingsAtOnceWhenResumedLate() throws {
        let rig = try ManualRig()
        try rig.engine.setWallClock(.seconds(1_000))
        let alarm = try alarm(rig, at: .seconds(1_010))
        try rig.engine.start(alarm)
        try rig.advance(.seconds(4))
        try rig.engine.suspend(alarm)
        try rig.advance(.seconds(3))
        #expect(try rig.engine.remaining(of: alarm) == .seconds(3))  // the time left keeps shrinking
        #expect(try rig.engine.elapsed(of: alarm) == .seconds(4))
        try rig.engine.resume(alarm)
        #expect(try rig.engine.remaining(of: alarm) == .seconds(3))
        try rig.engine.suspend(alarm)
        try rig.advance(.seconds(20))
        #expect(try rig.engine.state(of: alarm) == .suspended)
        rig.recorder.clear()
        try rig.engine.resume(alarm)
        try rig.advance(.zero)
        #expect(rig.recorder.summary == ["state running", "finish", "state finished"])
        #expect(rig.recorder.all[1].lateness == .zero)
    }

    @Test func adjustingAnAlarmMovesItsTime() throws {
        let rig = try ManualRig()
        try rig.engine.setWallClock(.seconds(1_000))
        let alarm = try alarm(rig, at: .seconds(1_010))
        try rig.engine.start(alarm)
        try rig.engine.adjust(alarm, by: .seconds(5))
        #expect(try rig.engine.alarmTime(of: alarm) == .seconds(1_015))
        #expect(try rig.engine.remaining(of: alarm) == .seconds(15))
        try rig.advance(.seconds(15))
        #expect(try rig.engine.state(of: alarm) == .finished)
        #expect(throws: TocsinError.invalidArgument) { try rig.engine.adjust(alarm, by: .seconds(-1)) }
        try rig.engine.adjust(alarm, by: .seconds(60))  // snooze
        #expect(try rig.engine.alarmTime(of: alarm) == .seconds(1_075))
        #expect(try rig.engine.state(of: alarm) == .running)
        try rig.advance(.seconds(60))
        #expect(try rig.engine.state(of: alarm) == .finished)
        #expect(rig.recorder.all.filter { $0.kind == .finish }.count == 2)
        // Running, moved behind the wall clock: finishes at once.
        try rig.engine.start(alarm)
        try rig.engine.adjust(alarm, by: .seconds(-1))
        #expect(try rig.engine.state(of: alarm) == .running)
        try rig.advance(.zero)
        #expect(try rig.engine.state(of: alarm) == .finished)
    }

    @Test func alarmTimesAreChecked() throws {
        let rig = try ManualRig()
        #expect(throws: TocsinError.invalidArgument) { try rig.engine.alarm(at: .seconds(-1)) }
        #expect(throws: TocsinError.invalidArgument) { try rig.engine.alarm(at: .seconds(4_000_000_000)) }
        let countdown = try rig.countdown(.seconds(1))
        #expect(try rig.engine.alarmTime(of: countdown) == nil)
    }
}
