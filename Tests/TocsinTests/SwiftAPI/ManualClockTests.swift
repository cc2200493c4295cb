import Synchronization
import Testing
import Tocsin

/// What finished, in order, by the tasks that slept.
private final class Log: Sendable {
    private let lines = Mutex<[String]>([])
    func add(_ line: String) { lines.withLock { $0.append(line) } }
    var all: [String] { lines.withLock { $0 } }
}

@Suite struct ManualClockTests {
    @Test func aSleepEndsOnlyWhenTheClockIsAdvancedToIt() async throws {
        let clock = ManualClock()
        let sleeper = Task { try await clock.sleep(for: .seconds(10)) }
        await clock.waitForSleepers(1)
        #expect(try clock.advanceWithoutWaiting(by: .seconds(9)) == 0)
        #expect(clock.sleepers == 1)
        #expect(try clock.advanceWithoutWaiting(by: .seconds(1)) == 1)
        try await sleeper.value
        #expect(clock.sleepers == 0)
        #expect(clock.now == .init(offset: .seconds(10)))
    }

    /// A sleep counted as waiting has its timer armed: the advance a test
    /// makes on seeing it resumes it, on time. (It was counted before its
    /// timer was armed: an advance in between left it armed that much later,
    /// and a test waiting for it hung; seen under load in a fresh CI run.)
    @Test func aSleepSeenWaitingIsResumedByTheNextAdvance() async throws {
        for _ in 0..<50 {
            let clock = ManualClock()
            let sleepers = (0..<64).map { _ in Task { try await clock.sleep(for: .seconds(1)) } }
            await clock.waitForSleepers(64)
            #expect(try clock.advanceWithoutWaiting(by: .seconds(1)) == 64)
            // A sleep armed after that advance would wait for ever: let it end,
            // so that the test fails rather than hangs. (Counted by the clock,
            // not by a Mutex of the test's: ThreadSanitizer does not see a
            // Mutex's lock on Linux and reported the tasks' appends as a race.)
            var steps = 0
            while clock.sleepers > 0 && steps < 100_000 {
                try clock.advanceWithoutWaiting(by: .seconds(1))
                await Task.yield()
                steps += 1
            }
            for sleeper in sleepers { try await sleeper.value }
        }
    }

    @Test func sleepsAreResumedInDeadlineOrder() async throws {
        let clock = ManualClock()
        let log = Log()
        let order = Mutex<[Int]>([])
        var tasks: [Task<Void, any Error>] = []
        for seconds in [5, 1, 4, 2, 3] {
            tasks.append(Task {
                try await clock.sleep(for: .seconds(seconds))
                log.add("\(seconds)")
            })
        }
        await clock.waitForSleepers(5)
        // Resumed one at a time, each after the task before it has logged:
        // the order of resumption is what is checked, not the scheduler's.
        for step in 1...5 {
            #expect(try clock.advanceWithoutWaiting(by: .seconds(1)) == 1)
            while log.all.count < step { await Task.yield() }
            order.withLock { $0.append(step) }
        }
        for task in tasks { try await task.value }
        #expect(log.all == ["1", "2", "3", "4", "5"])
    }

    @Test func oneAdvanceResumesEverySleepDueByThenOnce() async throws {
        let clock = ManualClock()
        let tasks = (1...100).map { index in Task { try await clock.sleep(for: .milliseconds(index)) } }
        await clock.waitForSleepers(100)
        #expect(try clock.advanceWithoutWaiting(by: .milliseconds(50)) == 50)
        #expect(clock.sleepers == 50)
        #expect(try clock.advanceWithoutWaiting(by: .seconds(1)) == 50)
        for task in tasks { try await task.value }
    }

    @Test func aSleepUntilAPassedInstantReturnsAtOnce() async throws {
        let clock = ManualClock()
        try clock.advanceWithoutWaiting(by: .seconds(5))
        try await clock.sleep(until: .init(offset: .seconds(5)))
        try await clock.sleep(until: .init(offset: .seconds(1)))
        try await Task.sleep(for: .zero, clock: clock)
        #expect(clock.sleepers == 0)
    }

    @Test func cancellingTheTaskEndsItsSleepAtOnce() async throws {
        let clock = ManualClock()
        let sleeper = Task { try await clock.sleep(for: .seconds(60)) }
        await clock.waitForSleepers(1)
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
        #expect(clock.sleepers == 0)
        #expect(try clock.advanceWithoutWaiting(by: .seconds(120)) == 0)  // its timer was freed
    }

    @Test func aTaskCancelledBeforeItSleepsThrowsAtOnce() async throws {
        let clock = ManualClock()
        let sleeper = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await clock.sleep(for: .seconds(1))
        }
        await #expect(throws: CancellationError.self) { try await sleeper.value }
        #expect(clock.sleepers == 0)
    }

    @Test func aLoopOfSleepsIsSteppedWithoutYieldingAFixedNumberOfTimes() async throws {
        let clock = ManualClock()
        let ticks = Atomic<Int>(0)
        let loop = Task {
            while !Task.isCancelled {
                try await clock.sleep(for: .seconds(1))
                ticks.add(1, ordering: .relaxed)
            }
        }
        for expected in 1...20 {
            await clock.waitForSleepers(1)
            try clock.advanceWithoutWaiting(by: .seconds(1))
            // The task logs, then sleeps again: once it waits, it has logged.
            await clock.waitForSleepers(1)
            #expect(ticks.load(ordering: .relaxed) == expected)
        }
        // The awaited advance: the loop runs between the steps it makes.
        try await clock.advance(by: .seconds(5))
        #expect(ticks.load(ordering: .relaxed) == 25)
        loop.cancel()
        _ = await loop.result
    }

    @Test func theAwakeClockStandsStillThroughASimulatedSuspend() async throws {
        let boot = ManualClock()
        let awake = boot.awake
        let log = Log()
        let onBoot = Task { try await boot.sleep(for: .seconds(10)); log.add("boot") }
        let onAwake = Task { try await awake.sleep(for: .seconds(10)); log.add("awake") }
        await boot.waitForSleepers(2)
        #expect(try boot.simulateSuspend(for: .seconds(30)) == 1)
        try await onBoot.value
        #expect(boot.now.offset == .seconds(30))
        #expect(awake.now.offset == .zero)
        #expect(try boot.advanceWithoutWaiting(by: .seconds(9)) == 0)
        #expect(try boot.advanceWithoutWaiting(by: .seconds(1)) == 1)
        try await onAwake.value
        #expect(log.all == ["boot", "awake"])
        #expect(awake.now.offset == .seconds(10))
    }

    @Test func aWallSleepFollowsTheWallClockSetForwardAndBack() async throws {
        let noon = WallClock.Instant(offset: .seconds(1_798_804_800))  // 2027-01-01 12:00 UTC
        let clock = ManualClock(wallClock: noon)
        let wall = clock.wall
        #expect(wall.now == noon)
        let sleeper = Task { try await wall.sleep(until: noon.advanced(by: .seconds(3600))) }
        await clock.waitForSleepers(1)
        #expect(try clock.setWallClock(to: noon.advanced(by: .seconds(-3600))) == 0)  // back an hour: two hours to go
        #expect(try clock.advanceWithoutWaiting(by: .seconds(3600)) == 0)
        #expect(try clock.setWallClock(to: noon.advanced(by: .seconds(7200))) == 1)  // forward past it: at once
        try await sleeper.value
        #expect(clock.now.offset == .seconds(3600))  // the boot clock only moved with advance
    }

    @Test func toleranceLetsSleepsEndTogetherButNeverEarly() async throws {
        let clock = ManualClock()
        let tasks = [1, 3, 7].map { ms in
            Task { try await clock.sleep(for: .milliseconds(ms), tolerance: .milliseconds(10)) }
        }
        await clock.waitForSleepers(3)
        #expect(try clock.advanceWithoutWaiting(by: .milliseconds(9)) == 0)
        #expect(try clock.advanceWithoutWaiting(by: .milliseconds(1)) == 3)
        for task in tasks { try await task.value }
    }

    @Test func itWorksWhereAnyClockIsTaken() async throws {
        func measure(_ clock: some Clock<Duration>) async throws -> Duration {
            let start = clock.now
            try await clock.sleep(for: .seconds(2))
            return start.duration(to: clock.now)
        }
        let clock = ManualClock()
        let measured = Task { try await measure(clock) }
        await clock.waitForSleepers(1)
        try clock.advanceWithoutWaiting(by: .seconds(5))
        #expect(try await measured.value == .seconds(5))
    }
}
