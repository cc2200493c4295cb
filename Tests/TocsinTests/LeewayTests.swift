import Glibc
import Synchronization
import Testing
@testable import Tocsin

/// Leeway on a manual clock: events fall due at the first multiple of the
/// leeway at or after their deadline, never before it, and their numbers,
/// elapsed times and lateness are the deadline's.
@Suite struct LeewayTests {
    @Test func ticksFireOnTheLeewaysGridAndCountLatenessFromTheirDeadline() throws {
        let rig = try ManualRig()
        try rig.advance(.milliseconds(300))
        let watch = try rig.stopwatch(tick: .seconds(1))
        try rig.engine.setLeeway(.seconds(1), for: watch)
        try rig.engine.start(watch)  // ticks due at 1.3 s, 2.3 s, …: they fire at 2 s, 3 s, …
        try rig.advance(.milliseconds(1699))
        #expect(rig.recorder.summary == ["state running"])
        try rig.advance(.milliseconds(1))
        try rig.advance(.seconds(3))
        let ticks = rig.recorder.all.filter { $0.kind == .tick }
        #expect(ticks.map(\.tick) == [1, 2, 3, 4])
        #expect(ticks.map(\.elapsed) == (1...4).map { .seconds($0) })
        #expect(ticks.allSatisfy { $0.lateness == .milliseconds(700) })
    }

    @Test func aDeadlineOnTheGridIsNotMovedAndNothingIsEverEarly() throws {
        let rig = try ManualRig()
        let exact = try rig.countdown(.seconds(2))
        let late = try rig.countdown(.milliseconds(2001))
        for timer in [exact, late] { try rig.engine.setLeeway(.milliseconds(500), for: timer) }
        try rig.engine.start(exact)
        try rig.engine.start(late)
        try rig.advance(.seconds(2))
        #expect(rig.recorder.all.filter { $0.kind == .finish }.map(\.timer) == [exact])
        try rig.advance(.milliseconds(499))
        #expect(rig.recorder.all.filter { $0.kind == .finish }.count == 1)
        try rig.advance(.milliseconds(1))
        let finishes = rig.recorder.all.filter { $0.kind == .finish }
        #expect(finishes.map(\.timer) == [exact, late])
        #expect(finishes.map(\.lateness) == [.zero, .milliseconds(499)])
        #expect(finishes.map(\.elapsed) == [.seconds(2), .milliseconds(2001)])
    }

    /// The property leeway exists for: 100 stopwatches ticking every second
    /// at random phases fall due at 100 instants a second without it, and
    /// at one with a leeway of a second.
    @Test(arguments: [(0, 100), (1000, 1), (500, 2), (250, 4)])
    func manyTimersShareOneInstantPerLeewayStep(leewayMilliseconds: Int, instantsPerSecond: Int) throws {
        let engine = try TimerEngine(delivery: .manualClock)
        defer { engine.close() }
        let times = Mutex<[Duration: Int]>([:])
        let lateness = Mutex<[Duration]>([])
        var random = SplitMix(seed: 7)
        var phases: Set<Int64> = []
        while phases.count < 100 { phases.insert(Int64(random.next() % 1_000_000)) }  // distinct, in µs
        var start = Duration.zero
        for phase in phases.sorted() {
            try engine.advance(by: .microseconds(phase) - engine.now())
            let watch = try engine.stopwatch()
            try engine.setTickInterval(.seconds(1), for: watch)
            try engine.setLeeway(.milliseconds(leewayMilliseconds), for: watch)
            try engine.setEventKinds(.tick, for: watch)
            try engine.setHandler(for: watch) { event in
                let now = (try? engine.now()) ?? .zero
                times.withLock { $0[now, default: 0] += 1 }
                lateness.withLock { $0.append(event.lateness) }
            }
            try engine.start(watch)
            start = .microseconds(phase)
        }
        try engine.advance(by: .seconds(2) - engine.now())  // every timer's first tick is behind
        times.withLock { $0.removeAll() }
        lateness.withLock { $0.removeAll() }
        try engine.advance(by: .seconds(10))
        let instants = times.withLock { $0 }
        #expect(instants.values.reduce(0, +) == 1000)
        #expect(instants.count == 10 * instantsPerSecond)
        let leeway = Duration.milliseconds(leewayMilliseconds)
        #expect(lateness.withLock { $0.allSatisfy { $0 >= .zero && $0 < max(leeway, .nanoseconds(1)) } })
        #expect(start < .seconds(1))
    }

    @Test func settingItOnARunningTimerMovesTheEventDueNext() throws {
        let rig = try ManualRig()
        let timer = try rig.countdown(.milliseconds(1200))
        try rig.engine.start(timer)
        try rig.engine.setLeeway(.seconds(1), for: timer)
        try rig.advance(.milliseconds(1999))
        #expect(!rig.recorder.summary.contains("finish"))
        try rig.advance(.milliseconds(1))
        #expect(rig.recorder.all.first { $0.kind == .finish }?.lateness == .milliseconds(800))
        try rig.engine.setLeeway(.zero, for: timer)
        rig.recorder.clear()
        try rig.engine.start(timer)  // at 2 s: due at 3.2 s exactly again
        try rig.advance(.milliseconds(1200))
        #expect(rig.recorder.all.first { $0.kind == .finish }?.lateness == .zero)
        #expect(try rig.engine.leeway(of: timer) == .zero)
    }

    @Test func coalescedTicksUnderALeewayAreOneTickPerWakeUp() throws {
        let rig = try ManualRig()
        let watch = try rig.stopwatch(tick: .milliseconds(100))
        try rig.engine.setTickPolicy(.coalesce, for: watch)
        try rig.engine.setLeeway(.seconds(1), for: watch)
        try rig.engine.start(watch)
        for _ in 0..<30 { try rig.advance(.milliseconds(100)) }  // a wake-up only every 1 s
        let ticks = rig.recorder.all.filter { $0.kind == .tick }
        // Ticks 1-10 are due by 1 s, 11-20 by 2 s, 21-30 by 3 s.
        #expect(ticks.map(\.tick) == [10, 20, 30])
        #expect(ticks.map(\.missed) == [9, 9, 9])
        #expect(ticks.allSatisfy { $0.lateness == .zero })
    }

    @Test func aCalendarAlarmRingsWithinItsLeeway() throws {
        let rig = try ManualRig()
        try rig.engine.setWallClock(.seconds(1_700_000_000))
        let alarm = try rig.engine.calendar(try CalendarSpec(parsing: "*:*:00/10 UTC"))
        try rig.engine.setHandler(for: alarm, rig.recorder.handler)
        try rig.engine.setLeeway(.seconds(3), for: alarm)
        try rig.engine.start(alarm)
        try rig.advance(.seconds(31))
        let rings = rig.recorder.all.filter { $0.kind == .finish }
        #expect(rings.count == 3)  // at 10, 20, 30 s past the first whole ten
        #expect(rings.allSatisfy { $0.lateness >= .zero && $0.lateness < .seconds(3) && $0.missed == 0 })
    }

    @Test func theLeewayIsSavedAndRestored() throws {
        let folder = temporaryFolder("/tmp/tocsin-leeway")
        defer { rmdir(folder) }
        let path = folder + "/timers.json"
        defer { unlink(path) }
        let rig = try ManualRig()
        let timer = try rig.countdown(.seconds(60))
        try rig.engine.setLeeway(.milliseconds(1500), for: timer)
        _ = try rig.countdown(.seconds(60))
        try rig.engine.save(to: path)
        let loaded = try TimerEngine(delivery: .manualClock)
        defer { loaded.close() }
        let timers = try loaded.load(from: path)
        #expect(try timers.map { try loaded.leeway(of: $0) } == [.milliseconds(1500), .zero])
    }

    @Test func badLeewaysAreRefusedAndChangeNothing() throws {
        let rig = try ManualRig()
        let engine = rig.engine
        let timer = try rig.countdown(.seconds(5))
        try engine.setLeeway(.seconds(1), for: timer)
        #expect(expectError(.invalidArgument) { () throws(TocsinError) in try engine.setLeeway(.milliseconds(-1), for: timer) })
        #expect(expectError(.invalidArgument) { () throws(TocsinError) in try engine.setLeeway(.seconds(86_401), for: timer) })
        #expect(expectError(.noSuchTimer) { () throws(TocsinError) in
            try engine.setLeeway(.seconds(1), for: TimerID(rawValue: 12345))
        })
        #expect(try engine.leeway(of: timer) == .seconds(1))
        try engine.setLeeway(.seconds(86_400), for: timer)
        #expect(try engine.leeway(of: timer) == .seconds(86_400))
    }

    @Test func roundingUpHandlesNegativeTimesAndSaturates() {
        #expect(EngineCore.roundedUp(-1, toMultipleOf: 10) == 0)
        #expect(EngineCore.roundedUp(-10, toMultipleOf: 10) == -10)
        #expect(EngineCore.roundedUp(-11, toMultipleOf: 10) == -10)
        #expect(EngineCore.roundedUp(11, toMultipleOf: 10) == 20)
        #expect(EngineCore.roundedUp(.max - 1, toMultipleOf: 1 << 40) == .max)
    }
}
