/// A `Clock` for tests: a simulated machine whose time moves only when the
/// test says, never on its own.
///
/// `await advance(by:)` moves time on as far as the next sleep's deadline,
/// resumes the sleeps due there and lets each resumed task run until it
/// sleeps on the machine again, then goes on to the next deadline, and so
/// on: a loop that sleeps a second at a time runs exactly 5 times in
/// `advance(by: .seconds(5))`, however loaded the machine (the way
/// swift-clocks' `TestClock` is meant to, without its fixed number of
/// yields). Only the tasks that sleeps resumed are waited for: work they
/// hand to another task (a channel's consumer, a `Task {}` they start) is
/// not, so a sleep that other task starts may come after the clock moved
/// on. Before the first advance, `await waitForSleepers(n)` tells that the
/// code under test has reached its first sleep: it returns once `n` sleeps
/// wait.
///
/// One simulated machine has three clocks, as a real one does: this one,
/// the boot clock, counts every step; `awake` (a `ManualClock.Awake`)
/// stands still during `simulateSuspend(for:)`, as `AwakeClock` does; `wall`
/// (a `ManualClock.Wall`) reads the simulated Unix time as a
/// `WallClock.Instant`, which `setWallClock(to:)` sets forward or back and
/// whose sleeps follow it, as `WallClock`'s do. Each has its own `Instant`
/// type, so a reading of one is not taken for another's. `advance` moves
/// all three; `simulateSuspend` moves the boot and wall clocks.
///
/// A value with a reference to its machine: copies and views share it.
/// Every method may be called from any thread or task.
public struct ManualClock: Clock, Sendable {
    public typealias Instant = ClockInstant<ManualClock>

    let machine: Machine

    /// A new simulated machine, its boot and awake clocks at zero and its
    /// wall clock at `wallClock` (Unix time; 1970 by default). `patience`:
    /// how long (real time) `advance(by:)` waits for resumed tasks that do
    /// not sleep again before it goes on without them (see there).
    ///
    /// A `wallClock` more than 100 years after 1970 gives a machine whose
    /// every sleep and advance fails with `.invalidArgument`.
    public init(
        wallClock: WallClock.Instant = WallClock.Instant(offset: .zero), patience: Duration = .milliseconds(500)
    ) {
        machine = Machine(wallClock: wallClock.nanoseconds, patience: patience)
    }

    init(machine: Machine) {
        self.machine = machine
    }

    /// The same machine's awake clock: stands still during `simulateSuspend`.
    public var awake: Awake { Awake(machine: machine) }
    /// The same machine's wall clock (Unix time).
    public var wall: Wall { Wall(machine: machine) }

    /// The time since the machine was made, suspends included.
    public var now: Instant { Instant(offset: .nanoseconds(machine.now(.boot))) }

    /// One nanosecond.
    public var minimumResolution: Duration { .nanoseconds(1) }

    /// Sleeps until this clock reads `deadline`: until an `advance` or
    /// `simulateSuspend` brings it there. Returns at once if it has passed.
    ///
    /// - Throws: `CancellationError` if the task is cancelled (at once, and
    ///   the sleep no longer counts as waiting).
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try await machine.sleep(until: deadline.nanoseconds, on: .boot, tolerance: tolerance)
    }

    /// Moves every clock of the machine on by `step`, stopping at each
    /// sleep's deadline on the way (a sleep's tolerance may put it later):
    /// there the sleeps due are resumed, in deadline order, and their tasks
    /// run until each sleeps on the machine again, so what they start
    /// meanwhile is served in this advance too, and the advance returns once
    /// every task it resumed sleeps again. A resumed task that does not (it
    /// ended, or awaits something else) holds it up until `patience` (given
    /// to `init`, half a second by default) of real time passes with no
    /// resumed task sleeping again; then it goes on without it (on a
    /// machine so loaded that a looping task took longer than that, the
    /// loop would miss this advance's later deadlines: raise `patience`).
    /// Two advances at once are served one after the other.
    ///
    /// - Returns: how many sleeps it resumed.
    /// - Throws: `.invalidArgument` for a negative step or one that would
    ///   take the clock past about 146 years.
    @discardableResult
    public func advance(by step: Duration) async throws(TocsinError) -> Int {
        guard let nanoseconds = Nanos.from(step) else { throw .invalidArgument }
        return try await machine.advance(by: nanoseconds)
    }

    /// Moves the machine on until this clock reads `instant` (if it is
    /// ahead), as `advance(by:)` does.
    @discardableResult
    public func advance(to instant: Instant) async throws(TocsinError) -> Int {
        let step = now.duration(to: instant)
        return step > .zero ? try await advance(by: step) : 0
    }

    /// Moves every clock of the machine on by `step` at once and resumes,
    /// in deadline order, the sleeps due by then, without waiting for their
    /// tasks: a sleep a resumed task starts is served by a later call (or
    /// by this one, if the task got there before it ended). For a test that
    /// steps one sleep at a time with `waitForSleepers`, or whose tasks end.
    ///
    /// - Returns: how many sleeps it resumed.
    /// - Throws: as `advance(by:)`.
    @discardableResult
    public func advanceWithoutWaiting(by step: Duration) throws(TocsinError) -> Int {
        try machine.engine.get().advance(by: step)
    }

    /// Simulates a suspend of the machine for `duration`: the boot and wall
    /// clocks move on by it, the awake one does not; then resumes what fell
    /// due, late by as much as the suspend passed it, as after a real
    /// suspend (without waiting for the tasks, as `advanceWithoutWaiting`).
    @discardableResult
    public func simulateSuspend(for duration: Duration) throws(TocsinError) -> Int {
        try machine.engine.get().simulateSuspend(for: duration)
    }

    /// Sets the wall clock to `time`, forward or back; the boot and awake
    /// clocks stay. Wall sleeps whose time it passes are resumed.
    ///
    /// - Throws: `.invalidArgument` for a time before 1970 or past 100
    ///   years after it.
    @discardableResult
    public func setWallClock(to time: WallClock.Instant) throws(TocsinError) -> Int {
        try machine.engine.get().setWallClock(nanoseconds: time.nanoseconds)
    }

    /// How many sleeps on the machine's clocks wait now.
    public var sleepers: Int { machine.sleepers.value }

    /// Returns once at least `count` sleeps on the machine's clocks wait:
    /// the code under test has reached them. This is how a test knows a
    /// task is ready for the first `advance`. It does not end on the task's
    /// cancellation.
    public func waitForSleepers(_ count: Int = 1) async {
        await machine.sleepers.wait(for: count)
    }
}
