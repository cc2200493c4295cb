import Glibc

/// How times and durations are worded for a person to read, in one place
/// for the notifier, the service's messages and the command. (Clocks that
/// count, "04:59", are `Nanos.clock`'s.)
package enum Wording {
    /// "07:00", or "07:00:05" given seconds: each part two digits.
    package static func timeOfDay(_ parts: [Int]) -> String {
        parts.map { $0 < 10 ? "0\($0)" : "\($0)" }.joined(separator: ":")
    }

    /// A clock of time left or passed as notifications and status bars show
    /// it: "4:59", "1:02:03" (minutes unpadded; the terminal pads them,
    /// `Display.clock`).
    package static func clock(_ nanoseconds: Int64, roundUp: Bool) -> String {
        Nanos.clock(nanoseconds, roundUp: roundUp, padMinutes: false)
    }

    /// A Unix time's local time of day as the locale writes it (`LC_TIME`):
    /// "07:00", "7:00 AM" (with `seconds`, "07:00:05", "7:00:05 AM"); a
    /// program that never called `setlocale` gets C's, "07:00". The zone is
    /// read as it is now (`tzset`: a changed `TZ` or /etc/localtime counts,
    /// which `localtime_r` alone would not see).
    package static func localTimeOfDay(unixSeconds: Int64, seconds: Bool = false) -> String {
        localText(unixSeconds: unixSeconds, format: timeFormat(seconds: seconds), seconds: seconds)
    }

    /// True if a Unix time falls on today's date, local time.
    package static func isLocalToday(unixSeconds: Int64) -> Bool {
        var (then, now) = (time_t(unixSeconds), time(nil))
        var (a, b) = (tm(), tm())
        guard localtime_r(&then, &a) != nil, localtime_r(&now, &b) != nil else { return true }
        return (a.tm_year, a.tm_yday) == (b.tm_year, b.tm_yday)
    }

    /// A Unix time's local day and time as the locale writes the weekday
    /// and the time (`LC_TIME`), the date in ISO order: "Mon 2026-12-28
    /// 07:00", "Mo 2026-12-28 07:00", "Mon 2026-12-28 7:00 AM".
    package static func localDateAndTime(unixSeconds: Int64) -> String {
        localText(unixSeconds: unixSeconds, format: "%a %Y-%m-%d " + timeFormat(seconds: false), seconds: false)
    }

    /// The locale's abbreviated name of a weekday (0 = Monday … 6 = Sunday):
    /// "Mon", "Mo", "lun.".
    package static func weekdayAbbreviation(mondayFirst weekday: Int) -> String {
        String(cString: nl_langinfo(nl_item(Int(ABDAY_1) + (weekday + 1) % 7)))
    }

    private static func localText(unixSeconds: Int64, format: String, seconds: Bool) -> String {
        var time = time_t(unixSeconds)
        var local = tm()
        tzset()
        localtime_r(&time, &local)
        var buffer = [CChar](repeating: 0, count: 128)
        let written = strftime(&buffer, buffer.count, format, &local)
        guard written > 0 else {
            return timeOfDay([Int(local.tm_hour), Int(local.tm_min)] + (seconds ? [Int(local.tm_sec)] : []))
        }
        return String(decoding: buffer.prefix(written).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The locale's time format (`T_FMT`: "%H:%M:%S", "%T", "%r" = "%I:%M:%S
    /// %p"), without its seconds unless asked; the hour of a 12-hour clock
    /// unpadded ("7:00 AM", as people write it).
    static func timeFormat(seconds: Bool) -> String {
        var format = String(cString: nl_langinfo(nl_item(T_FMT)))
        format = format.replacingEvery("%T", with: "%H:%M:%S").replacingEvery("%r", with: "%I:%M:%S %p")
        if !seconds { format = format.replacingEvery(":%S", with: "").replacingEvery(".%S", with: "") }
        return format.replacingEvery("%I", with: "%-I")
    }

    /// A length in its units, to the nearest second and at least one:
    /// "5 min", "1 h 30 min", "1 min 30 s" (a snooze, a ring).
    package static func duration(_ nanoseconds: Int64) -> String {
        let total = max(1, (nanoseconds + Nanos.perSecond / 2) / Nanos.perSecond)
        return units(hours: total / 3600, minutes: total % 3600 / 60, seconds: total % 60)
    }

    /// A length in the units that are not 0 (at least one is), each set of
    /// them one whole message, so that a language joins and orders them its
    /// own way: "1 h 30 min", "1 min 30 s", "45 s".
    private static func units(hours: Int64, minutes: Int64, seconds: Int64) -> String {
        let values: KeyValuePairs = ["hours": String(hours), "minutes": String(minutes), "seconds": String(seconds)]
        switch (hours > 0, minutes > 0, seconds > 0) {
        // TRANSLATORS: a length in short units: "1 h 30 min 15 s".
        case (true, true, true): return tr("{hours} h {minutes} min {seconds} s", values)
        case (true, true, false): return tr("{hours} h {minutes} min", values)
        case (true, false, true): return tr("{hours} h {seconds} s", values)
        // TRANSLATORS: a length in short units: "1 min 30 s"; also "12 min 30 s" for '12:30'.
        case (false, true, true): return tr("{minutes} min {seconds} s", values)
        // TRANSLATORS: short units of a length: "2 h", "5 min", "45 s".
        case (true, false, false): return tr("{n} h", ["n": String(hours)])
        case (false, true, false): return tr("{n} min", ["n": String(minutes)])
        case (false, false, _): return tr("{n} s", ["n": String(seconds)])
        }
    }

    /// A length in its largest unit, rounded down: "3 h", "12 min", "40 s"
    /// (how long ago something happened).
    package static func roughDuration(_ nanoseconds: Int64) -> String {
        let seconds = max(0, nanoseconds / Nanos.perSecond)
        if seconds >= 3600 { return tr("{n} h", ["n": String(seconds / 3600)]) }
        if seconds >= 60 { return tr("{n} min", ["n": String(seconds / 60)]) }
        return tr("{n} s", ["n": String(seconds)])
    }

    /// A length in words, to the nearest second: "1 minute", "2 hours",
    /// "30 seconds", "1 min 30 s" (a warning: "Tea: 1 minute left").
    package static func phrase(_ nanoseconds: Int64) -> String {
        let total = max(1, (nanoseconds + Nanos.perSecond / 2) / Nanos.perSecond)
        if total % 3600 == 0 { return trn("{count} hour", "{count} hours", Int(total / 3600)) }
        if total % 60 == 0 { return trn("{count} minute", "{count} minutes", Int(total / 60)) }
        if total < 60 { return trn("{count} second", "{count} seconds", Int(total)) }
        return units(hours: 0, minutes: total / 60, seconds: total % 60)
    }
}

extension String {
    /// Every `target` (a short ASCII piece of a format) replaced.
    fileprivate func replacingEvery(_ target: String, with replacement: String) -> String {
        let pieces = Array(utf8), wanted = Array(target.utf8)
        guard !wanted.isEmpty, pieces.count >= wanted.count else { return self }
        var result: [UInt8] = []
        var index = 0
        while index < pieces.count {
            if index + wanted.count <= pieces.count && Array(pieces[index..<index + wanted.count]) == wanted {
                result += replacement.utf8
                index += wanted.count
            } else {
                result.append(pieces[index])
                index += 1
            }
        }
        return String(decoding: result, as: UTF8.self)
    }
}
