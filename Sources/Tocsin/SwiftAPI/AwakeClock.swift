/// A `Clock` that counts only time the machine is awake
/// (`CLOCK_MONOTONIC`, the clock Swift's `SuspendingClock` reads on Linux):
/// a suspend pauses its sleeps. For work that should see a machine's
/// running time, not the hour on the wall.
///
/// Its sleeps are timers of the engine `BootClock`'s share, with the same
/// rules for tolerance and cancellation (see `BootClock`).
///
/// A value type with no state: use it from any thread or task.
public struct AwakeClock: Clock, Sendable {
    public typealias Instant = ClockInstant<AwakeClock>

    /// The clock; every value is the same clock.
    public init() {}

    /// The time since boot, suspends excluded.
    public var now: Instant { Instant(offset: .nanoseconds(Clocks.monotonic())) }

    /// One nanosecond.
    public var minimumResolution: Duration { .nanoseconds(1) }

    /// Sleeps until the awake clock reads `deadline`; returns at once if it
    /// has passed.
    ///
    /// - Throws: as `BootClock.sleep(until:tolerance:)`.
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try await TimerEngine.sleep(until: deadline.nanoseconds, on: .awake, tolerance: tolerance) {
            Clocks.monotonic()
        }
    }
}

extension Clock where Self == AwakeClock {
    /// The awake clock: a suspend pauses it (`CLOCK_MONOTONIC`).
    public static var awake: AwakeClock { AwakeClock() }
}
