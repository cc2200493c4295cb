/// Engine time is kept in nanoseconds as `Int64`: exact across suspend and
/// resume, and wide enough for `maxDuration` on top of any boot-clock reading.
package enum Nanos {
    package static let perSecond: Int64 = 1_000_000_000
    /// `TOCSIN_MAX_SECONDS`: 100 years, the longest duration, tick or step.
    package static let maxSeconds: Double = 3_155_760_000
    package static let max: Int64 = 3_155_760_000 * perSecond
    /// The manual clock stops short of this (about 146 years): with every
    /// duration at most `max`, no deadline can then overflow.
    package static let clockCeiling: Int64 = Int64.max / 2

    /// Seconds as given to the C API, or nil for NaN, infinite, negative or
    /// larger than `maxSeconds`. A positive value below 1 ns becomes 1 ns, so
    /// that "greater than zero" survives the conversion.
    @inlinable
    package static func from(seconds: Double) -> Int64? {
        // NaN fails both comparisons and an infinity one of them.
        guard seconds >= 0, seconds <= maxSeconds else { return nil }
        let scaled = seconds * Double(perSecond)
        // Rounded half away from zero, as `rounded()` does, without its libm
        // call (a third of this function): below 2^52, adding 0.5 and
        // truncating gives the same for every value but the one just under
        // 0.5 (which becomes 1, as any positive value does below); from 2^52
        // on, every Double is a whole number.
        let nanos = scaled < 0x1p52 ? Int64(scaled + 0.5) : Int64(scaled)
        return seconds > 0 ? Swift.max(nanos, 1) : 0
    }

    /// A Swift `Duration`, or nil when negative or longer than `max`.
    /// Sub-nanosecond parts are dropped (rounded up to 1 ns for a tiny positive value).
    package static func from(_ duration: Duration) -> Int64? {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0, attoseconds >= 0, seconds <= max / perSecond else { return nil }
        let nanos = seconds * perSecond + attoseconds / 1_000_000_000
        guard nanos <= max else { return nil }
        return (nanos == 0 && attoseconds > 0) ? 1 : nanos
    }

    /// A Swift `Duration` of either sign, or nil when longer than `max`
    /// either way (sub-nanosecond parts dropped, as `from(_:)`).
    package static func from(signed duration: Duration) -> Int64? {
        guard duration < .zero else { return from(duration) }
        return from(.zero - duration).map { -$0 }
    }

    /// Signed seconds as given to the C API (`tocsin_timer_adjust`), or nil
    /// for NaN, infinite or longer than `maxSeconds` either way. Rounded as
    /// `from(seconds:)` on the magnitude.
    @inlinable
    package static func from(signedSeconds seconds: Double) -> Int64? {
        seconds < 0 ? from(seconds: -seconds).map { -$0 } : from(seconds: seconds)
    }

    /// Seconds of either sign from elsewhere (a bus reply, a C caller) as
    /// nanoseconds: rounded, pinned to `-max...max`; NaN is 0.
    package static func saturating(seconds: Double) -> Int64 {
        guard !seconds.isNaN else { return 0 }
        return from(signedSeconds: Swift.min(Swift.max(seconds, -maxSeconds), maxSeconds)) ?? 0
    }

    @inlinable
    package static func seconds(_ nanos: Int64) -> Double {
        Double(nanos) / Double(perSecond)
    }
}

extension Int64 {
    /// `self - other`, pinned to `Int64.max`/`Int64.min` instead of trapping.
    @inlinable
    package func subtractingSaturated(_ other: Int64) -> Int64 {
        let (difference, overflow) = subtractingReportingOverflow(other)
        guard overflow else { return difference }
        return other < 0 ? .max : .min
    }

    /// `self + other`, pinned to `Int64.max`/`Int64.min` instead of trapping.
    @inlinable
    package func addingSaturated(_ other: Int64) -> Int64 {
        let (sum, overflow) = addingReportingOverflow(other)
        guard overflow else { return sum }
        return other > 0 ? .max : .min
    }
}

extension Nanos {
    /// A span as a clock, "4:59" or "1:02:03" ("04:59" with `padMinutes`):
    /// whole seconds, rounded up for time left (a countdown shows 0:01 until
    /// it is over) and down for time elapsed. Negative spans show as zero.
    package static func clock(_ nanoseconds: Int64, roundUp: Bool, padMinutes: Bool) -> String {
        let nanoseconds = Swift.max(0, nanoseconds)
        let total = roundUp ? nanoseconds / perSecond + (nanoseconds % perSecond == 0 ? 0 : 1) : nanoseconds / perSecond
        let (hours, minutes, seconds) = (total / 3600, total / 60 % 60, total % 60)
        let twoDigits = { (value: Int64) in value < 10 ? "0\(value)" : "\(value)" }
        if hours > 0 { return "\(hours):\(twoDigits(minutes)):\(twoDigits(seconds))" }
        return "\(padMinutes ? twoDigits(minutes) : "\(minutes)"):\(twoDigits(seconds))"
    }
}

extension Nanos {
    /// A span of a day or more as whole days and the rest as a clock with its
    /// hours, "03:04:59"; nil under a day. Whole seconds first (rounded up
    /// for time left), then the days: 86,399.9 s left is 1 day "00:00:00",
    /// never "24:00:00". (`tocsin ls`, `next`, the status bars.)
    package static func days(_ nanoseconds: Int64, roundUp: Bool) -> (days: Int64, clock: String)? {
        let span = Swift.max(0, nanoseconds)
        let seconds = roundUp ? span / perSecond + (span % perSecond == 0 ? 0 : 1) : span / perSecond
        guard seconds >= 86400 else { return nil }
        let clock = Nanos.clock(seconds % 86400 * perSecond, roundUp: false, padMinutes: true)
        return (seconds / 86400, String("00:00:00".prefix(Swift.max(0, 8 - clock.count))) + clock)
    }
}

extension Nanos {
    /// A span as a person types it to the command: "10m", "4m50s", "1h2m",
    /// "2.5s", "-10m" (tenths of a second at most).
    package static func words(_ nanoseconds: Int64) -> String {
        let sign = nanoseconds < 0 ? "-" : ""
        let tenths = nanoseconds.magnitude / UInt64(perSecond / 10)
        let (hours, minutes, seconds, tenth) = (tenths / 36000, tenths / 600 % 60, tenths / 10 % 60, tenths % 10)
        var text = sign
        if hours > 0 { text += "\(hours)h" }
        if minutes > 0 { text += "\(minutes)m" }
        if seconds > 0 || tenth > 0 || text == sign { text += tenth > 0 ? "\(seconds).\(tenth)s" : "\(seconds)s" }
        return text
    }
}

extension Duration {
    /// Whole nanoseconds (sub-nanosecond parts dropped; no range check).
    package var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * Nanos.perSecond + attoseconds / 1_000_000_000
    }
}
