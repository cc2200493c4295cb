import TocsinBase

/// One timer as the file keeps it.
struct SavedTimer: Equatable {
    var stopwatch: Bool
    var label: String
    var duration: Int64
    var tick: Int64
    var state: TimerState
    var elapsed: Int64
    var laps: [Int64]
    /// An adjusted countdown's duration before the adjustments of its run:
    /// what a restart runs from. Nil if not adjusted.
    var originalDuration: Int64? = nil
    var coalescesTicks = false
    var clock = TimerClock.boot
    /// An alarm's wall-clock time, Unix ns (a calendar alarm's coming
    /// occurrence); nil for other timers.
    var alarmTime: Int64? = nil
    /// A calendar alarm's spec, normalized; nil for other timers.
    var calendar: String? = nil
    /// A calendar alarm's rings before this wall time (Unix ns) are
    /// skipped; nil: none (and for other timers).
    var skipUntil: Int64? = nil
    /// Wakes a suspended machine (`tocsin_timer_set_wake`).
    var wake = false
    /// Leeway in ns (`tocsin_timer_set_leeway`); 0: none.
    var leeway: Int64 = 0
}

extension SavedTimer {
    var json: JSON {
        var members: [(String, JSON)] = [
            ("kind", .string(kind)), ("label", .string(label)),
            ("duration_ns", .integer(duration)), ("tick_ns", .integer(tick)),
            ("state", .string(state.description)), ("elapsed_ns", .integer(elapsed)),
            ("laps_ns", .array(laps.map(JSON.integer))),
        ]
        if let originalDuration { members.append(("original_duration_ns", .integer(originalDuration))) }
        if coalescesTicks { members.append(("tick_policy", .string("coalesce"))) }
        if clock == .awake { members.append(("clock", .string("awake"))) }
        if let alarmTime { members.append(("alarm_unix_ns", .integer(alarmTime))) }
        if let calendar { members.append(("calendar", .string(calendar))) }
        if let skipUntil { members.append(("skip_until_unix_ns", .integer(skipUntil))) }
        if wake { members.append(("wake", .bool(true))) }
        if leeway != 0 { members.append(("leeway_ns", .integer(leeway))) }
        return .object(members)
    }

    var kind: String {
        stopwatch ? "stopwatch" : calendar != nil ? "calendar" : alarmTime == nil ? "countdown" : "alarm"
    }

    /// A saved timer, or nil if anything in it is out of range or inconsistent.
    init?(_ json: JSON) {
        guard case .string(let kind)? = json["kind"], ["countdown", "stopwatch", "alarm", "calendar"].containsSame(kind),
              case .string(let label)? = json["label"], label.utf8.count <= TimerEngine.maxLabelBytes,
              case .integer(let duration)? = json["duration_ns"],
              case .integer(let tick)? = json["tick_ns"], (0...Nanos.max).contains(tick),
              case .string(let stateName)? = json["state"],
              let state = TimerState.allCases.first(where: { $0.description.isSame(as: stateName) }),
              case .integer(let elapsed)? = json["elapsed_ns"], elapsed >= 0,
              case .array(let lapItems)? = json["laps_ns"], lapItems.count <= 1_000_000
        else { return nil }
        let stopwatch = kind.isSame(as: "stopwatch")
        var laps: [Int64] = []
        var lapTotal: Int64 = 0
        for item in lapItems {
            guard case .integer(let lap) = item, lap >= 0 else { return nil }
            let (sum, overflow) = lapTotal.addingReportingOverflow(lap)
            guard !overflow else { return nil }
            lapTotal = sum
            laps.append(lap)
        }
        guard lapTotal <= elapsed else { return nil }
        if stopwatch {
            guard duration == 0, state != .finished, elapsed <= Int64.max / 2 else { return nil }
        } else {
            guard (1...Nanos.max).contains(duration), elapsed <= duration else { return nil }
            if state == .finished && elapsed != duration { return nil }
        }
        if state == .idle && (elapsed != 0 || !laps.isEmpty) { return nil }
        var original: Int64?
        switch json["original_duration_ns"] {
        case nil: original = nil
        case .integer(let value)? where !stopwatch && (1...Nanos.max).contains(value): original = value
        default: return nil
        }
        let coalesces: Bool
        switch json["tick_policy"] {
        case nil: coalesces = false
        case let value? where value.isString("every"): coalesces = false
        case let value? where value.isString("coalesce"): coalesces = true
        default: return nil
        }
        let clock: TimerClock
        switch json["clock"] {
        case nil: clock = .boot
        case let value? where value.isString("boot"): clock = .boot
        case let value? where value.isString("awake") && !kind.isSame(as: "alarm") && !kind.isSame(as: "calendar"):
            clock = .awake
        default: return nil
        }
        let isAlarm = kind.isSame(as: "alarm") || kind.isSame(as: "calendar")
        var alarmTime: Int64?
        switch (isAlarm, json["alarm_unix_ns"]) {
        case (true, .integer(let time)?) where (0...Nanos.max).contains(time) && original == nil: alarmTime = time
        case (true, _): return nil
        case (false, nil): alarmTime = nil
        default: return nil
        }
        let wake: Bool
        switch json["wake"] {
        case nil, .bool(false)?: wake = false
        case .bool(true)? where !stopwatch && clock == .boot: wake = true
        default: return nil
        }
        var leeway: Int64 = 0
        switch json["leeway_ns"] {
        case nil: break
        case .integer(let value)? where (0...TimerEngine.maxLeeway).contains(value): leeway = value
        default: return nil
        }
        var calendar: String?
        switch (kind.isSame(as: "calendar"), json["calendar"]) {
        case (true, .string(let text)?):
            // The zone may have gone since the save: the alarm then has no
            // occurrence left, and comes back rather than losing the file.
            guard (try? CalendarSpec(parsing: text, checkingZone: false)) != nil else { return nil }
            calendar = text
        case (true, _): return nil
        case (_, nil): calendar = nil
        default: return nil
        }
        var skipUntil: Int64?
        switch json["skip_until_unix_ns"] {
        case nil: skipUntil = nil
        case .integer(let time)? where calendar != nil && (0...Nanos.max).contains(time): skipUntil = time
        default: return nil
        }
        self.init(stopwatch: stopwatch, label: label, duration: duration, tick: tick, state: state,
                  elapsed: elapsed, laps: laps, originalDuration: original, coalescesTicks: coalesces,
                  clock: clock, alarmTime: alarmTime, calendar: calendar, skipUntil: skipUntil, wake: wake, leeway: leeway)
    }
}
