/// Skipping a calendar alarm's rings without deleting it: the next one, the
/// next few, or every one before a date (a holiday). A skipped ring does
/// not sound (no FINISH), is not counted in `missed`, and does not wake the
/// machine; `alarmTime(of:)` is the ring that will come. A skip is a wall
/// time, so it holds across wall-clock and time-zone changes, and it is
/// saved (`skip_until_unix_ns` in the timer file).
///
/// Thread-safe, like every call on the engine; each is one lock of the
/// engine and, for `count`, a search of the spec per ring skipped.
extension TimerEngine {
    /// The most rings one `skipRings(_:count:)` skips.
    public static let maxSkippedRings = 100_000

    /// Skips the next `count` rings of a calendar alarm, counted from its
    /// coming one (rings already skipped are not counted again). A running
    /// alarm gets a STATE event with its new time left.
    ///
    /// - Throws: `.invalidArgument` for another kind of timer or a count
    ///   of 0 or over `maxSkippedRings`; `.outOfRange` if the spec has no ring after
    ///   them (nothing changes); `.wrongState` once it finished.
    /// - Complexity: O(count) searches of the spec, O(log n) to re-arm.
    public func skipRings(_ timer: TimerID, count: Int = 1) throws(TocsinError) {
        guard count > 0 else { throw .invalidArgument }
        try core.skipRings(timer, count: UInt64(count))
    }

    /// Skips every ring of a calendar alarm before `time` (a wall time, as
    /// `wallClock()` reads it), in place of any skip before.
    ///
    /// - Throws: `.invalidArgument` for another kind of timer or a time not
    ///   after the wall clock now; `.outOfRange` if the spec has no ring
    ///   after it; `.wrongState` once it finished.
    public func skipRings(_ timer: TimerID, until time: Duration) throws(TocsinError) {
        guard let nanoseconds = Nanos.from(time) else { throw .invalidArgument }
        try core.skipRings(timer, untilNanoseconds: nanoseconds)
    }

    /// Undoes a skip: the alarm comes to its next occurrence after now
    /// again. A timer without a skip is left as it is.
    ///
    /// - Throws: `.invalidArgument` for another kind of timer; `.wrongState`
    ///   once it finished.
    public func clearSkip(_ timer: TimerID) throws(TocsinError) {
        try core.clearSkip(timer)
    }

    /// Until when a calendar alarm's rings are skipped (a wall time); nil
    /// when none is, and for any other timer.
    public func skippedUntil(_ timer: TimerID) throws(TocsinError) -> Duration? {
        try core.skippedUntil(timer).map { .nanoseconds($0) }
    }
}
