/// Occurrences in a time zone, across its daylight-saving changes.
extension CalendarSpec {
    /// The zone the spec's wall times are read in: its own, else the local
    /// zone (looked up afresh, so a change of the system's zone is
    /// followed); nil for a zone that is no longer installed.
    package func zoneRules() -> ZoneRules? {
        guard let zone else { return ZoneRules.local() }
        return ZoneRules(named: zone)
    }

    /// The next occurrence strictly after `unixSeconds`, its wall time read
    /// in `rules`. Where a change skips local times, the occurrences that
    /// fall in the gap ring once, at the moment of the change; a local time
    /// that occurs twice rings at its first occurrence only.
    package func next(after unixSeconds: Int64, in rules: ZoneRules) -> Int64? {
        var wall = unixSeconds + Int64(rules.offset(at: unixSeconds))
        while let candidate = next(afterUTC: wall) {  // the next matching wall time, read as if UTC
            switch rules.instants(ofWallTime: candidate) {
            case .once(let instant), .twice(let instant, _), .skipped(let instant):
                if instant > unixSeconds { return instant }
            }
            wall = candidate
        }
        return nil
    }
}

extension ZoneRules {
    /// When a wall time happens.
    package enum WallTimeInstants: Equatable {
        case once(Int64)
        /// Clocks were set back over it: its two instants, in order.
        case twice(Int64, Int64)
        /// Clocks were set forward over it: the instant of the change.
        case skipped(change: Int64)
    }

    /// The instants (Unix seconds) at which the zone's clocks read `wall`
    /// (seconds since 1970 of the local date and time, as if UTC).
    package func instants(ofWallTime wall: Int64) -> WallTimeInstants {
        // The offsets in force a day either side (no zone changes twice in a day).
        let before = offset(at: wall - 86400), after = offset(at: wall + 86400)
        let early = wall - Int64(before), late = wall - Int64(after)
        let earlyHolds = offset(at: early) == before, lateHolds = offset(at: late) == after
        switch (before == after, earlyHolds, lateHolds) {
        case (true, _, _): return .once(early)
        case (false, true, true): return .twice(min(early, late), max(early, late))
        case (false, true, false): return .once(early)
        case (false, false, true): return .once(late)
        case (false, false, false):
            var low = min(early, late), high = max(early, late)  // the change lies between: the first second of `after`
            while low < high {
                let middle = low + (high - low) / 2
                if offset(at: middle) == after { high = middle } else { low = middle + 1 }
            }
            return .skipped(change: low)
        }
    }
}
