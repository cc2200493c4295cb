/// A `Clock` that counts real time, time the machine spends suspended
/// included (`CLOCK_BOOTTIME`): a sleep of 10 minutes across a 30-minute
/// suspend ends as the machine wakes. It is the clock Swift's
/// `ContinuousClock` reads on Linux (its sleeps arm a `CLOCK_BOOTTIME`
/// timerfd too; Tests/package/Sources/swift-clocks pins both); what
/// `BootClock` adds is below: the tolerance honoured, one kernel timer for
/// every sleep, and `ManualClock` to test the same code on.
///
/// Every sleep of the process on `BootClock`, `AwakeClock` and `WallClock`
/// is a timer of one shared engine, served by its one kernel timer and
/// thread (started by the first sleep): no thread or kernel timer per
/// sleep. A sleep's `tolerance` is the timer's leeway (at most a day): it
/// ends at the first multiple of the tolerance on the boot clock at or after
/// its deadline, so sleeps with the same tolerance wake the process once;
/// never early. Cancelling the sleeping task ends the sleep at once with
/// `CancellationError` and frees its timer.
///
/// A value type with no state: use it from any thread or task.
public struct BootClock: Clock, Sendable {
    public typealias Instant = ClockInstant<BootClock>

    /// The clock; every value is the same clock.
    public init() {}

    /// The time since boot, suspends included.
    public var now: Instant { Instant(offset: .nanoseconds(bootClockNow())) }

    /// One nanosecond: the engine keeps time in nanoseconds.
    public var minimumResolution: Duration { .nanoseconds(1) }

    /// Sleeps until the boot clock reads `deadline`; returns at once if it
    /// has passed.
    ///
    /// - Throws: `CancellationError` if the task is cancelled; `TocsinError`
    ///   `.io` if the shared engine cannot start, `.outOfMemory`.
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try await TimerEngine.sleep(until: deadline.nanoseconds, on: .boot, tolerance: tolerance) { bootClockNow() }
    }
}

extension Clock where Self == BootClock {
    /// The boot clock: real time, suspends included (`CLOCK_BOOTTIME`).
    public static var boot: BootClock { BootClock() }
}
