package import Tocsin
import TocsinBase

/// How the command shows time: text only, no terminal access.
public enum Display {
    /// A timer's state as the command's lines say it: "paused" and
    /// "cancelled", as its display and final lines do ("suspended" and
    /// "canceled" stay the values of the JSON, the D-Bus API and the files).
    public static func state(_ value: String) -> String {
        switch value {
        case "suspended": "paused"
        case "canceled": "cancelled"
        default: value
        }
    }

    /// "04:59" below an hour, "1:04:59" from an hour on. Counts whole seconds,
    /// rounding up for time left (a 3 s countdown starts at 00:03 and reaches
    /// 00:00 when it finishes) and down for time elapsed.
    public static func clock(nanoseconds: Int64, roundUp: Bool) -> String {
        Nanos.clock(nanoseconds, roundUp: roundUp, padMinutes: true)
    }

    /// A time in a calendar spec's zone for a person to read: systemd's
    /// form with the locale's weekday, "Mo 2026-12-28 07:00:00 +01:00".
    package static func wallText(_ zone: ZoneRules, unixSeconds: Int64) -> String {
        zone.wallText(unixSeconds: unixSeconds, weekdayName: Wording.weekdayAbbreviation(mondayFirst:))
    }

    /// Time until a calendar alarm's ring, or any time left: "04:59",
    /// "1:04:59", "2d 03:04:59"; `roundUp` false: how long ago.
    public static func until(nanoseconds: Int64, roundUp: Bool = true) -> String {
        guard let (days, clock) = Nanos.days(nanoseconds, roundUp: roundUp) else { return clock(nanoseconds: nanoseconds, roundUp: roundUp) }
        // TRANSLATORS: days and a clock, "2d 03:04:59": d for days, as short as the language allows.
        return tr("{days}d {clock}", ["days": String(days), "clock": clock])
    }

    /// "Mon 2026-12-28 07:00": a Unix time in the local zone, to the minute,
    /// its weekday and time as the locale writes them ("Mo 2026-12-28 07:00",
    /// "Mon 2026-12-28 7:00 AM").
    public static func localDate(unixSeconds: Int64) -> String {
        Wording.localDateAndTime(unixSeconds: unixSeconds)
    }

    /// A total: "25:00", or "00:01.5" when it has tenths.
    public static func total(nanoseconds: Int64) -> String {
        let tenths = (max(0, nanoseconds) + 50_000_000) / 100_000_000
        let whole = clock(nanoseconds: tenths / 10 * Nanos.perSecond, roundUp: false)
        return tenths % 10 == 0 ? whole : whole + ".\(tenths % 10)"
    }

    /// "01:02.3": a stopwatch's elapsed time with tenths.
    public static func stopwatch(nanoseconds: Int64) -> String {
        let tenths = max(0, nanoseconds) / 100_000_000
        return clock(nanoseconds: tenths / 10 * Nanos.perSecond, roundUp: false) + ".\(tenths % 10)"
    }

    /// A bar `width` cells wide, filled to `fraction` (0...1).
    public static func bar(fraction: Double, width: Int) -> String {
        guard width > 0 else { return "" }
        let filled = min(width, max(0, Int((fraction * Double(width)).rounded(.down))))
        return String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
    }

    /// One live line, fitted to `columns` (the label is cut first, then the bar).
    public static func countdownLine(
        label: String, remaining: Int64, duration: Int64, paused: Bool, columns: Int
    ) -> String {
        let time = clock(nanoseconds: remaining, roundUp: true)
        let state = shown(state: paused ? "paused" : "running")
        let fixed = time.count + state.count + 8  // spaces and brackets
        var room = max(0, columns - 1 - fixed)
        let name = String(label.prefix(min(label.count, max(8, room / 3))))
        room -= name.count
        let done = duration > 0 ? 1 - Double(max(0, remaining)) / Double(duration) : 1
        let barWidth = min(40, max(0, room))
        return fitted("\(name)  \(time)  [\(bar(fraction: done, width: barWidth))]  \(state)", columns: columns)
    }

    public static func stopwatchLine(label: String, elapsed: Int64, laps: Int, paused: Bool, columns: Int) -> String {
        var line = "\(label)  \(stopwatch(nanoseconds: elapsed))"
        if laps > 0 { line += "  " + lapCount(laps) }
        line += "  " + shown(state: paused ? "paused" : "running")
        return fitted(line, columns: columns)
    }

    /// "(3 laps)", in the user's language.
    static func lapCount(_ laps: Int) -> String {
        trn("({count} lap)", "({count} laps)", laps)
    }

    /// A state word (`Display.state`'s, or "waiting") as a person reads it:
    /// `tocsin ls`, the live line. The English word stays what the command
    /// compares and what programs get (JSON, status bars).
    static func shown(state: String) -> String {
        // TRANSLATORS: a timer's state, a column of `tocsin ls` and the end of the live line.
        switch state {
        case "waiting": tr("waiting")
        case "idle": tr("idle")
        case "running": tr("running")
        case "paused": tr("paused")
        case "finished": tr("finished")
        case "cancelled": tr("cancelled")
        default: state
        }
    }

    /// At most `columns - 1` characters, so the terminal never wraps the line.
    static func fitted(_ line: String, columns: Int) -> String {
        String(line.prefix(max(1, columns - 1)))
    }
}

