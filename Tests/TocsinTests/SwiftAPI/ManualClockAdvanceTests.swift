import Synchronization
import Testing
import Tocsin

/// `await ManualClock.advance(by:)`: it stops at each deadline and lets
/// the tasks it resumed run until they sleep again, so sleeps they start
/// meanwhile are served in the same advance, however busy the machine.
@Suite struct ManualClockAdvanceTests {
    /// The loop of swift-clocks' example: 5 ticks of a 1 s loop in one
    /// advance of 5 s, every time (50 fresh machines).
    @Test func aOneSecondLoopTicksFiveTimesInFiveSeconds() async throws {
        for round in 0..<50 {
            let clock = ManualClock()
            let ticks = Ticks()
            let loop = ticks.loop(on: clock)
            await clock.waitForSleepers(1)
            #expect(try await clock.advance(by: .seconds(5)) == 5)
            #expect(ticks.count == 5, "round \(round)")
            #expect(clock.now.offset == .seconds(5))
            loop.cancel()
            _ = await loop.result
        }
    }

    /// Two loops of different periods, each doing work (an actor hop)
    /// between sleeps: every deadline of both within the advance, in order.
    @Test func loopsOfDifferentPeriodsInterleaveInDeadlineOrder() async throws {
        actor Log {
            var lines: [String] = []
            func add(_ line: String) { lines.append(line) }
        }
        let clock = ManualClock()
        let log = Log()
        let loops = [("a", Duration.seconds(1)), ("b", Duration.milliseconds(1400))].map { name, period in
            Task {
                while true {
                    try await clock.sleep(for: period)
                    let (seconds, attoseconds) = clock.now.offset.components
                    await log.add("\(name)@\(attoseconds == 0 ? seconds : seconds * 1000 + attoseconds / 1_000_000_000_000_000)")
                }
            }
        }
        await clock.waitForSleepers(2)
        // (No two deadlines at once: tasks resumed together run in either order.)
        #expect(try await clock.advance(by: .milliseconds(4100)) == 6)
        let lines = await log.lines
        #expect(lines == ["a@1", "b@1400", "a@2", "b@2800", "a@3", "a@4"], "\(lines)")
        for loop in loops { loop.cancel() }
    }

    /// A chain of sleeps, each started by the task the one before resumed,
    /// on all three clocks of the machine: one advance serves them all.
    @Test func sleepsStartedMeanwhileOnAnyViewAreServed() async throws {
        let clock = ManualClock(wallClock: WallClock.Instant(offset: .seconds(1_798_804_800)))
        let done = Atomic(false)
        let chain = Task {
            try await clock.sleep(for: .seconds(1))
            try await clock.awake.sleep(for: .seconds(2))
            try await clock.wall.sleep(until: clock.wall.now.advanced(by: .seconds(3)))
            done.store(true, ordering: .relaxed)
            try await clock.sleep(for: .seconds(100))
        }
        await clock.waitForSleepers(1)
        #expect(try await clock.advance(by: .seconds(10)) == 3)
        let finished = done.load(ordering: .relaxed)
        #expect(finished)
        chain.cancel()
    }

    /// A task that ends after its sleep holds the advance up for the
    /// clock's patience at most, then the advance goes on without it.
    @Test func aTaskThatEndsHoldsTheAdvanceUpForThePatienceAtMost() async throws {
        let clock = ManualClock(patience: .milliseconds(50))
        let ended = Task { try await clock.sleep(for: .seconds(1)) }
        let loop = Task {
            while true { try await clock.sleep(for: .seconds(2)) }
        }
        await clock.waitForSleepers(2)
        let started = ContinuousClock.now
        #expect(try await clock.advance(by: .seconds(4)) == 3)
        let waited = started.duration(to: .now)
        #expect(waited >= .milliseconds(50) && waited < .seconds(10))  // the patience, once
        try await ended.value
        loop.cancel()
    }

    /// Two advances at once: one after the other, each step in order.
    @Test func twoAdvancesAtOnceAreServedOneAfterTheOther() async throws {
        let clock = ManualClock()
        let ticks = Ticks()
        let loop = ticks.loop(on: clock)
        await clock.waitForSleepers(1)
        async let first = clock.advance(by: .seconds(3))
        async let second = clock.advance(by: .seconds(3))
        #expect(try await first + second == 6)
        #expect(ticks.count == 6)
        loop.cancel()
    }

    @Test func aNegativeOrHugeStepIsRefusedAndMovesNothing() async throws {
        let clock = ManualClock()
        await #expect(throws: TocsinError.invalidArgument) { try await clock.advance(by: .seconds(-1)) }
        await #expect(throws: TocsinError.invalidArgument) { try await clock.advance(by: .seconds(200 * 31_557_600)) }
        #expect(clock.now.offset == .zero)
    }
}

/// A loop of 1 s sleeps and the count of its ticks.
private final class Ticks: Sendable {
    private let ticks = Atomic(0)

    var count: Int { ticks.load(ordering: .relaxed) }

    /// Starts the loop on `clock`: it sleeps a second, ticks, and again.
    func loop(on clock: ManualClock) -> Task<Void, any Error> {
        Task {
            while true {
                try await clock.sleep(for: .seconds(1))
                ticks.add(1, ordering: .relaxed)
            }
        }
    }
}
