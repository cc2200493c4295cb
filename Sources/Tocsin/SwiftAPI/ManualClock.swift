/// A `Clock` for tests: a simulated machine whose time moves only when the
/// test says, never on its own, and never by reading a real clock.
///
/// `advance(by:)` moves time on and resumes, on the calling thread and in
/// deadline order, every sleep due by then; a sleep until a time already
/// reached returns at once. Nothing waits for other tasks to run: to know
/// that the code under test has got to its next sleep, `await
/// waitForSleepers(n)`, which returns once `n` sleeps wait, however busy
/// the machine (no yielding a fixed number of times, the way
/// swift-clocks' `TestClock` does, which starves on loaded machines).
///
/// One simulated machine has three clocks, as a real one does, each a
/// `ManualClock` value of the same machine: `boot` (the clock `ManualClock()`
/// gives) counts every step; `awake` stands still during
/// `simulateSuspend(for:)` (sleeps on it pause, as on `AwakeClock`); `wall`
/// reads the simulated Unix time, which `setWallClock(to:)` sets forward or
/// back (sleeps on it follow, as on `WallClock`). `advance` moves all
/// three; `simulateSuspend` moves `boot` and `wall`.
///
/// A value with a reference to its machine: copies share it. Every method
/// may be called from any thread or task; `advance` and its kin are served
/// one at a time.
public struct ManualClock: Clock, Sendable {
    public typealias Instant = ClockInstant<ManualClock>

    /// Which of the machine's clocks a value reads and sleeps on.
    public enum Reading: Sendable, Hashable {
        /// Every step counts, suspends included.
        case boot
        /// Suspends do not count.
        case awake
        /// Unix time, set by `setWallClock(to:)`.
        case wall
    }

    /// The clock this value reads and sleeps on.
    public let reading: Reading
    private let machine: Machine

    /// A new simulated machine, all of its clocks at zero but the wall
    /// clock, which reads `wallClock` (Unix time); the value reads its boot clock.
    public init(wallClock: Duration = .zero) {
        machine = Machine(wallClock: wallClock)
        reading = .boot
    }

    private init(machine: Machine, reading: Reading) {
        self.machine = machine
        self.reading = reading
    }

    /// The same machine's boot clock.
    public var boot: ManualClock { ManualClock(machine: machine, reading: .boot) }
    /// The same machine's awake clock: stands still during `simulateSuspend`.
    public var awake: ManualClock { ManualClock(machine: machine, reading: .awake) }
    /// The same machine's wall clock (Unix time).
    public var wall: ManualClock { ManualClock(machine: machine, reading: .wall) }

    /// The time on this clock: since the machine was made (`boot`, `awake`),
    /// or since 1970 (`wall`).
    public var now: Instant { Instant(offset: .nanoseconds(machine.now(reading))) }

    /// One nanosecond.
    public var minimumResolution: Duration { .nanoseconds(1) }

    /// Sleeps until this clock reads `deadline`: until an `advance`,
    /// `simulateSuspend` or `setWallClock` brings it there. Returns at once
    /// if it has passed.
    ///
    /// - Throws: `CancellationError` if the task is cancelled (at once, and
    ///   the sleep no longer counts as waiting); `TocsinError.invalidArgument`
    ///   for a `wall` deadline more than 100 years after 1970.
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try Task.checkCancellation()
        try await machine.sleep(until: deadline.nanoseconds, on: reading, tolerance: tolerance)
    }

    /// Moves every clock of the machine on by `step` and resumes, in deadline
    /// order, the sleeps due by then, including those due after sleeps that
    /// the resumed tasks start meanwhile. Returns how many sleeps it resumed.
    ///
    /// - Throws: `.invalidArgument` for a negative step or one that would
    ///   take the clock past about 146 years.
    @discardableResult
    public func advance(by step: Duration) throws(TocsinError) -> Int {
        try machine.engine.get().advance(by: step)
    }

    /// Moves the machine on until this clock reads `instant` (if it is
    /// ahead), as `advance(by:)` does.
    @discardableResult
    public func advance(to instant: Instant) throws(TocsinError) -> Int {
        let step = now.duration(to: instant)
        return step > .zero ? try advance(by: step) : 0
    }

    /// Simulates a suspend of the machine for `duration`: `boot` and `wall`
    /// move on by it, `awake` does not; then resumes what fell due, late by
    /// as much as the suspend passed it, as after a real suspend.
    @discardableResult
    public func simulateSuspend(for duration: Duration) throws(TocsinError) -> Int {
        try machine.engine.get().simulateSuspend(for: duration)
    }

    /// Sets the wall clock to `unixTime`, forward or back; `boot` and
    /// `awake` stay. Wall sleeps whose time it passes are resumed.
    ///
    /// - Throws: `.invalidArgument` for a negative time or one past 100
    ///   years after 1970.
    @discardableResult
    public func setWallClock(to unixTime: Duration) throws(TocsinError) -> Int {
        try machine.engine.get().setWallClock(unixTime)
    }

    /// How many sleeps on the machine's clocks wait now.
    public var sleepers: Int { machine.sleepers.value }

    /// Returns once at least `count` sleeps on the machine's clocks wait:
    /// the code under test has reached them. This is how a test knows a
    /// task is ready for the next `advance`. It does not end on the task's
    /// cancellation.
    public func waitForSleepers(_ count: Int = 1) async {
        await machine.sleepers.wait(for: count)
    }
}

extension ManualClock {
    /// The simulated machine: an engine on a manual clock, and its sleepers.
    private final class Machine: Sendable {
        let engine: Result<TimerEngine, TocsinError>
        let sleepers = SleeperCount()

        init(wallClock: Duration) {
            engine = Result { () throws(TocsinError) in
                let engine = try TimerEngine(delivery: .manualClock)
                if wallClock != .zero { try engine.setWallClock(wallClock) }
                return engine
            }
        }

        deinit {
            if case .success(let engine) = engine { engine.close() }
        }

        func now(_ reading: Reading) -> Int64 {
            guard case .success(let engine) = engine else { return 0 }
            return switch reading {
            case .boot: (try? engine.core.nowNanoseconds()) ?? 0
            case .awake: (try? engine.core.awakeNowNanoseconds()) ?? 0
            case .wall: (try? engine.core.wallClockNanoseconds()) ?? 0
            }
        }

        func sleep(until deadline: Int64, on reading: Reading, tolerance: Duration?) async throws {
            let engine = try engine.get()
            guard deadline > now(reading) else { return }
            switch reading {
            case .wall:
                try await engine.sleep(untilWallClock: deadline, tolerance: tolerance, counter: sleepers)
            case .boot, .awake:
                try await engine.sleep(
                    until: deadline, on: reading == .boot ? .boot : .awake, tolerance: tolerance, counter: sleepers
                ) { now(reading) }
            }
        }
    }
}
