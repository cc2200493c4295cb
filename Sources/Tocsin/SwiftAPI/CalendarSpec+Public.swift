/// A calendar spec for Swift programs: parsed once, its occurrences read
/// as often as wanted, and given to `TimerEngine.calendar(_:)`.
///
/// A value type: safe to share between threads.
extension CalendarSpec: CustomStringConvertible {
    /// Parses a calendar event in systemd.time(7)'s syntax (`OnCalendar=`):
    /// `Mon..Fri 07:00`, `*-*-01 09:00 Europe/Paris`, `hourly`… The rules
    /// are those of `tocsin_calendar_new` in tocsin.h.
    ///
    /// - Throws: `CalendarSpecError` with the fault and its column, for a
    ///   spec that does not parse or names a time zone not installed.
    public init(_ text: String) throws(CalendarSpecError) {
        try self.init(parsing: text)
    }

    /// The spec as systemd prints it: `Mon..Fri *-*-* 07:00:00`.
    public var description: String { normalized }

    /// The first occurrence strictly after `time`, in whole seconds, read
    /// in the spec's zone or else the local one, across daylight-saving
    /// changes as systemd does; nil if there is none before 2200 or the
    /// spec's zone is no longer installed. A `ManualClock`'s `wall.now` is
    /// a `WallClock.Instant` too.
    ///
    /// - Complexity: a few microseconds for the usual specs
    ///   (bench/calendar.sh: 0.2 to 1.1 µs).
    public func next(after time: WallClock.Instant) -> WallClock.Instant? {
        let (seconds, attoseconds) = time.offset.components
        let after = attoseconds < 0 ? seconds - 1 : seconds  // floored: the second it is in
        guard let rules = zoneRules(), let next = next(after: after, in: rules) else { return nil }
        return WallClock.Instant(offset: .seconds(next))
    }

    /// The occurrences after `time`, in order, as `next(after:)` finds them
    /// one by one (lazily: take what you need, with `prefix`).
    public func occurrences(after time: WallClock.Instant) -> UnfoldSequence<WallClock.Instant, WallClock.Instant> {
        sequence(state: time) { last in
            guard let next = next(after: last) else { return nil }
            last = next
            return next
        }
    }

    /// The first occurrence strictly after `unixTime` (time since
    /// 1970-01-01 00:00 UTC), as `next(after:)` of a `WallClock.Instant`.
    @available(*, deprecated, message: "pass and get a WallClock.Instant: next(after: WallClock().now)")
    public func next(after unixTime: Duration) -> Duration? {
        next(after: WallClock.Instant(offset: unixTime))?.offset
    }

    /// The occurrences after `unixTime` (time since 1970), as
    /// `occurrences(after:)` of a `WallClock.Instant`.
    @available(*, deprecated, message: "pass and get WallClock.Instants: occurrences(after: WallClock().now)")
    public func occurrences(after unixTime: Duration) -> UnfoldSequence<Duration, Duration> {
        sequence(state: unixTime) { last in
            guard let next = next(after: WallClock.Instant(offset: last))?.offset else { return nil }
            last = next
            return next
        }
    }
}

extension TimerEngine {
    /// Creates an idle calendar alarm: started, it rings at every occurrence
    /// of `spec`: a FINISH that leaves it running towards the next one, with
    /// `remaining` the time until it and `missed` the occurrences passed
    /// over since the last ring. It follows the wall clock as `alarm(at:)`
    /// does; `setWake` makes it wake a suspended machine.
    ///
    /// - Throws: `.outOfRange` if the spec has no occurrence within 100
    ///   years, `.outOfMemory`, `.closed`.
    /// - Complexity: O(1) amortized, and a few microseconds for the next occurrence.
    public func calendar(_ spec: CalendarSpec) throws(TocsinError) -> TimerID {
        try core.calendar(spec)
    }

    /// Creates an idle alarm that finishes when the wall clock reads
    /// `time`, as `alarm(at:)` of a Unix time does.
    ///
    /// - Throws: `.invalidArgument` for a time before 1970 or more than
    ///   100 years after it.
    public func alarm(at time: WallClock.Instant) throws(TocsinError) -> TimerID {
        try alarm(at: time.offset)
    }

    /// Creates an idle calendar alarm from the text of a spec, as
    /// `calendar(CalendarSpec(text))` does.
    ///
    /// - Throws: `.invalidArgument` for a spec that does not parse (parse it
    ///   with `CalendarSpec(_:)` to know why), else as `calendar(_:)`.
    public func calendar(_ text: String) throws(TocsinError) -> TimerID {
        guard let spec = try? CalendarSpec(text) else { throw .invalidArgument }
        return try calendar(spec)
    }
}
