import Glibc
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

/// Awake timers and alarms in the timer file.
@Suite struct ClockRestoreTests {
    static let second: Int64 = 1_000_000_000
    static let savedAt: Int64 = 1_700_000_000 * second
    static let boot = BootStamp(id: "f78714b1-9c52-4591-afa1-afc904065c77", time: 100 * second, awake: 90 * second)

    let path: String

    init() {
        path = temporaryFolder("/tmp/tocsin-clocks") + "/timers.json"
    }

    /// Saves a 60 s AWAKE countdown and a 60 s BOOT one, each run 3 s.
    func saveTwoCountdowns() throws {
        let engine = try TimerEngine(delivery: .manualClock)
        defer { engine.close() }
        let boot = try engine.countdown(.seconds(60))
        let awake = try engine.countdown(.seconds(60))
        try engine.setClock(.awake, for: awake)
        try engine.start(boot)
        try engine.start(awake)
        try engine.advance(by: .seconds(3))
        try engine.save(to: path, realtime: Self.savedAt, boot: Self.boot)
    }

    func loadedElapsed(boot: BootStamp?, realtime: Int64) throws -> [Duration] {
        let engine = try TimerEngine(delivery: .manualClock)
        defer { engine.close() }
        let restored = try engine.load(from: path, realtime: realtime, boot: boot)
        #expect(try engine.clock(of: restored[1]) == .awake)
        return try restored.map { try engine.elapsed(of: $0) }
    }

    @Test func anAwakeTimerCountsOnlyTheAwakeTimeAway() throws {
        try saveTwoCountdowns()
        // 20 s later on the boot clock, of which 15 s suspended: 5 s awake.
        let later = BootStamp(id: Self.boot.id, time: Self.boot.time + 20 * Self.second, awake: 95 * Self.second)
        #expect(try loadedElapsed(boot: later, realtime: Self.savedAt) == [.seconds(23), .seconds(8)])
        // After a restart: none of the time away.
        let otherBoot = BootStamp(id: "00000000-0000-4000-8000-000000000000", time: 5 * Self.second, awake: 5 * Self.second)
        #expect(try loadedElapsed(boot: otherBoot, realtime: Self.savedAt + 30 * Self.second) == [.seconds(33), .seconds(3)])
    }

    @Test func anAlarmIsSavedAsItsWallTimeAndOneThatRangWhileAwayIsAnnounced() throws {
        let engine = try TimerEngine(delivery: .manualClock)
        defer { engine.close() }
        try engine.setWallClock(.seconds(1_000))
        let soon = try engine.alarm(at: .seconds(1_010))
        let later = try engine.alarm(at: .seconds(2_000))
        try engine.setLabel("soon", for: soon)
        try engine.start(soon)
        try engine.start(later)
        try engine.advance(by: .seconds(4))
        try engine.save(to: path, realtime: Self.savedAt, boot: Self.boot)
        let text = String(decoding: try TimerFile.read(path), as: UTF8.self)
        #expect(text.contains("\"kind\": \"alarm\""))
        #expect(text.contains("\"alarm_unix_ns\": 1010000000000"))

        let other = try TimerEngine(delivery: .manualClock)
        defer { other.close() }
        try other.setWallClock(.seconds(1_500))
        let recorder = Recorder()
        let restored = try other.load(from: path, realtime: Self.savedAt)
        #expect(try other.state(of: restored[0]) == .finished)
        #expect(try other.state(of: restored[1]) == .running)
        #expect(try other.alarmTime(of: restored[1]) == .seconds(2_000))
        #expect(try other.remaining(of: restored[1]) == .seconds(500))
        try other.setHandler(for: restored[0], recorder.handler)
        try other.advance(by: .zero)
        let finish = try #require(recorder.all.first { $0.kind == .finish })
        #expect(finish.lateness == .seconds(490))
        try other.advance(by: .seconds(500))
        #expect(try other.state(of: restored[1]) == .finished)
    }

    @Test func badClockAndAlarmFieldsAreCorrupt() throws {
        for timer in [
            #"{"kind": "countdown", "clock": "wall", "#,
            #"{"kind": "alarm", "clock": "awake", "alarm_unix_ns": 5, "#,
            #"{"kind": "alarm", "#,
            #"{"kind": "alarm", "alarm_unix_ns": -1, "#,
            #"{"kind": "countdown", "alarm_unix_ns": 5, "#,
        ] {
            let text = """
                {"format": "tocsin-timers", "version": 2, "saved_realtime_ns": 1, "timers": [
                  \(timer)"label": "", "duration_ns": 60000000000, "tick_ns": 0,
                   "state": "idle", "elapsed_ns": 0, "laps_ns": []}]}
                """
            try TimerFile.writeAtomically(Array(text.utf8), to: path)
            let engine = try TimerEngine(delivery: .manualClock)
            defer { engine.close() }
            #expect(throws: TocsinError.corrupt) { try engine.load(from: path) }
            #expect(try engine.timerCount() == 0)
        }
    }
}
