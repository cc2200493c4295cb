import Glibc
import Synchronization
import Testing
import Tocsin

/// Sleeps on the real clocks. Bounds are one-sided where the machine's load
/// can only make a sleep later: never early is the promise.
@Suite struct RealClockSleepTests {
    @Test func aBootClockSleepEndsAtItsDeadlineNeverBefore() async throws {
        let clock = BootClock()
        let deadline = clock.now.advanced(by: .milliseconds(30))
        try await clock.sleep(until: deadline)
        #expect(clock.now >= deadline)  // no upper bound: a busy test run holds resumed tasks up for seconds
    }

    @Test func theClocksReadTheKernelsClocks() {
        func kernel(_ clock: clockid_t) -> Duration {
            var time = timespec()
            clock_gettime(clock, &time)
            return .seconds(time.tv_sec) + .nanoseconds(time.tv_nsec)
        }
        func near(_ a: Duration, _ b: Duration) -> Bool { a - b < .seconds(1) && b - a < .seconds(1) }
        #expect(near(BootClock().now.offset, kernel(CLOCK_BOOTTIME)))
        #expect(near(AwakeClock().now.offset, kernel(CLOCK_MONOTONIC)))
        #expect(AwakeClock().now.offset <= BootClock().now.offset)
        #expect(near(WallClock().now.offset, kernel(CLOCK_REALTIME)))
    }

    @Test func awakeAndWallSleepsEndNeverEarly() async throws {
        let awake = AwakeClock()
        let awakeDeadline = awake.now.advanced(by: .milliseconds(20))
        try await awake.sleep(until: awakeDeadline)
        #expect(awake.now >= awakeDeadline)
        let wall = WallClock()
        let wallDeadline = wall.now.advanced(by: .milliseconds(20))
        try await Task.sleep(until: wallDeadline, clock: wall)
        #expect(wall.now >= wallDeadline)
    }

    @Test func thousandsOfSleepsShareTheEnginesOneThread() async throws {
        let clock = BootClock()
        let start = clock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<2000 {
                group.addTask { try await clock.sleep(for: .milliseconds(index % 50)) }
            }
            try await group.waitForAll()
        }
        #expect(start.duration(to: clock.now) >= .milliseconds(49))
        #expect(threadCount() < 1000)  // not a thread per sleep (other tests' engines have theirs)
    }

    @Test func cancellingARealSleepEndsItAtOnce() async throws {
        let clock = BootClock()
        let sleeper = Task { try await clock.sleep(for: .seconds(3600)) }
        try await clock.sleep(for: .milliseconds(10))
        sleeper.cancel()
        // CancellationError, not the end of the hour: the cancel ended it.
        await #expect(throws: CancellationError.self) { try await sleeper.value }
    }

    @Test func aHugeSleepIsAcceptedAndCancellable() async throws {
        let sleeper = Task { try await BootClock().sleep(for: .seconds(Int64(1) << 40)) }
        try await BootClock().sleep(for: .milliseconds(5))
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
    }

    private func threadCount() -> Int {
        guard let file = fopen("/proc/self/status", "r") else { return 0 }
        defer { fclose(file) }
        var line = [CChar](repeating: 0, count: 256)
        while fgets(&line, 256, file) != nil {
            let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if text.hasPrefix("Threads:") { return Int(text.dropFirst(8).filter(\.isNumber)) ?? 0 }
        }
        return 0
    }
}

/// The process's shared engine (every BootClock, AwakeClock and WallClock
/// sleep's): a failed start is not kept.
@Suite struct SharedEngineTests {
    @Test func aFailedStartIsTriedAgainAtTheNextUse() throws {
        let attempts = Atomic(0)
        let shared = SharedEngine { () throws(TocsinError) in
            if attempts.add(1, ordering: .relaxed).newValue == 1 { throw .io }  // as with no fd left (EMFILE)
            return try TimerEngine(delivery: .manualClock)
        }
        #expect(throws: TocsinError.io) { try shared.get() }
        let engine = try shared.get()
        #expect(try shared.get() === engine)  // made once it worked, then kept
        #expect(attempts.load(ordering: .relaxed) == 2)
        engine.close()
        let _: SharedEngine = TimerEngine.clocks  // the clocks' engine is one of these
    }
}
