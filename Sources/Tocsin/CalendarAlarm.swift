import TocsinBase

/// A calendar alarm's schedule in the engine: its spec, and the
/// occurrences it gives in Unix nanoseconds, each read in the spec's zone
/// as the zone's file says at that moment (`ZoneCache`). A class: the
/// engine's side table holds one reference per alarm, not the spec's
/// arrays (copied and released at each change, they made arming a calendar
/// alarm cost twice a search more than arming an alarm).
///
/// `@unchecked Sendable`: used only under the engine's lock.
final class CalendarAlarm: @unchecked Sendable {
    let spec: CalendarSpec
    /// Rings before this wall time (Unix ns) are skipped (`+Skips`); nil:
    /// none.
    var skipUntil: Int64?
    /// Restored with a held FINISH: the occurrences skipped before the one
    /// it announces, delivered with it as `missed`.
    var heldMissed: UInt64 = 0

    init(spec: CalendarSpec) {
        self.spec = spec
    }

    /// How many occurrences a late ring counts as missed at most: counting
    /// is a walk over them (a second-by-second spec left suspended for a
    /// day has 86,400), and it happens with the engine's lock held.
    static var missedCountLimit: UInt64 { 100_000 }

    /// The last answer of `occurrence(after:)`: asked after `wall` with
    /// the zone's reading `zone`, it was `next`.
    private var last: (wall: Int64, zone: UInt64, next: Int64)?

    /// The first occurrence strictly after `time` (Unix ns); nil if there is
    /// none within the engine's range (`Nanos.max`), or the spec's zone is
    /// no longer installed. Asked again later, before that occurrence and
    /// with the same reading of the zone's file, it is the same answer,
    /// found without a search (creating and then starting a calendar alarm
    /// costs one search).
    /// Skipped rings are passed over.
    func occurrence(after time: Int64) -> Int64? {
        guard let rules = spec.zoneRules() else { return nil }
        let time = skipUntil.map { max(time, $0 - 1) } ?? time
        if let last, rules.version != 0, last.zone == rules.version, last.wall <= time, time < last.next {
            return last.next
        }
        let next = Self.occurrence(of: spec, after: time, in: rules)
        last = next.map { (time, rules.version, $0) }
        return next
    }

    /// The first occurrence strictly after `time`, skipped or not.
    func unskippedOccurrence(after time: Int64) -> Int64? {
        guard let rules = spec.zoneRules() else { return nil }
        return Self.occurrence(of: spec, after: time, in: rules)
    }

    /// The occurrences after `first` (an occurrence) through `wall` (Unix
    /// ns): the last occurrence at or before `wall`, how many came between
    /// the two (up to `missedCountLimit`), and the first after `wall`.
    func occurrences(after first: Int64, through wall: Int64) -> (last: Int64, skipped: UInt64, next: Int64?) {
        guard let rules = spec.zoneRules() else { return (first, 0, nil) }
        var last = first
        var skipped: UInt64 = 0
        while skipped < Self.missedCountLimit, let next = Self.occurrence(of: spec, after: last, in: rules), next <= wall {
            last = next
            skipped += 1
        }
        return (last, skipped, Self.occurrence(of: spec, after: max(last, wall), in: rules))
    }

    private static func occurrence(of spec: CalendarSpec, after time: Int64, in rules: ZoneRules) -> Int64? {
        let seconds = CalendarSpec.floorDivide(time, Nanos.perSecond)
        guard let next = spec.next(after: seconds, in: rules), next <= Nanos.max / Nanos.perSecond else { return nil }
        return next * Nanos.perSecond
    }
}
