/// A `Clock` of Unix time (`CLOCK_REALTIME`: time since 1970-01-01 00:00
/// UTC), whose sleeps follow the wall clock: a sleep until 07:00 ends when
/// the wall clock reads 07:00, even if the clock is set forward or back
/// meanwhile (by NTP, by hand, after a suspend) and whatever the time zone
/// does, since an instant is a Unix time, not a local one. Set forward past
/// a deadline, the sleep ends at once.
///
/// Its sleeps are alarms of the engine `BootClock`'s share, with the same
/// rules for tolerance and cancellation (see `BootClock`); they end late,
/// never early, if the clock is set while they wait.
///
/// A value type with no state: use it from any thread or task.
public struct WallClock: Clock, Sendable {
    public typealias Instant = ClockInstant<WallClock>

    /// The clock; every value is the same clock.
    public init() {}

    /// The wall clock: time since 1970-01-01 00:00 UTC.
    public var now: Instant { Instant(offset: .nanoseconds(Clocks.realtime())) }

    /// One nanosecond.
    public var minimumResolution: Duration { .nanoseconds(1) }

    /// Sleeps until the wall clock reads `deadline`; returns at once if it
    /// has passed.
    ///
    /// - Throws: `CancellationError` if the task is cancelled; `TocsinError`
    ///   `.invalidArgument` for a deadline more than 100 years after 1970
    ///   (`TOCSIN_MAX_SECONDS`), `.io` if the shared engine cannot start.
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try Task.checkCancellation()
        let time = deadline.nanoseconds
        guard time > Clocks.realtime() else { return }
        try await TimerEngine.clocks.get().sleep(untilWallClock: time, tolerance: tolerance)
    }
}

extension Clock where Self == WallClock {
    /// The wall clock (Unix time), whose sleeps follow its changes.
    public static var wall: WallClock { WallClock() }
}
