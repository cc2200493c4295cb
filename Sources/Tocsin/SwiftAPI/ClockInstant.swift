/// A reading of one of Tocsin's clocks: the time since that clock's origin
/// (the boot, for `BootClock` and `AwakeClock`; 1970-01-01 00:00 UTC for
/// `WallClock`; the clock's creation for `ManualClock`). `Origin` is the
/// clock the reading belongs to, so readings of different clocks do not mix.
///
/// A value type: safe to share between threads.
public struct ClockInstant<Origin: Sendable>: InstantProtocol, CustomStringConvertible {
    /// The time since the clock's origin.
    public var offset: Duration

    /// The reading `offset` after the clock's origin.
    public init(offset: Duration) {
        self.offset = offset
    }

    /// The reading `duration` later (earlier if negative).
    public func advanced(by duration: Duration) -> Self {
        Self(offset: offset + duration)
    }

    /// How far `other` is after this reading (negative if before).
    public func duration(to other: Self) -> Duration {
        other.offset - offset
    }

    /// True if `a` is the earlier reading.
    public static func < (a: Self, b: Self) -> Bool {
        a.offset < b.offset
    }

    /// The offset, as `Duration` prints it ("1.5 seconds").
    public var description: String { "\(offset)" }

    /// The reading in whole nanoseconds, saturated to Int64's range.
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = offset.components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: Nanos.perSecond)
        if overflow { return seconds < 0 ? .min : .max }
        return scaled.addingSaturated(attoseconds / 1_000_000_000)
    }
}
