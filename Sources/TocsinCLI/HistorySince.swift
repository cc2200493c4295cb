import Glibc
import TocsinBase

/// Wall-clock dates and times of a zone: the local one (`system`), or UTC
/// for tests that must not depend on the machine's.
package struct WallClock: Sendable {
    /// The Unix time of a date and time on this clock (`tm` fields as
    /// `mktime` takes them, the hour's daylight-saving left to it); nil if
    /// there is none.
    let unixTime: @Sendable (_ fields: tm) -> Int64?
    /// The date and time on this clock of a Unix time.
    let fields: @Sendable (_ unixSeconds: Int64) -> tm

    /// The machine's local time (`TZ`, /etc/localtime).
    package static let system = WallClock(
        unixTime: { fields in
            var copy = fields
            copy.tm_isdst = -1
            let made = mktime(&copy)
            return made == -1 && (copy.tm_year, copy.tm_mon) != (69, 11) ? nil : Int64(made)
        },
        fields: { seconds in
            var time = time_t(seconds)
            var local = tm()
            tzset()
            localtime_r(&time, &local)
            return local
        })

    /// UTC.
    package static let utc = WallClock(
        unixTime: { fields in
            var copy = fields
            return Int64(timegm(&copy))
        },
        fields: { seconds in
            var time = time_t(seconds)
            var utc = tm()
            gmtime_r(&time, &utc)
            return utc
        })

    /// "2026-11-29" of a Unix time.
    package func day(_ unixSeconds: Int64) -> String {
        let parts = fields(unixSeconds)
        let twoDigits = { (value: Int32) in value < 10 ? "0\(value)" : "\(value)" }
        return "\(parts.tm_year + 1900)-\(twoDigits(parts.tm_mon + 1))-\(twoDigits(parts.tm_mday))"
    }

    /// "2026-11-29 14:05:09" of a Unix time.
    package func dateAndTime(_ unixSeconds: Int64) -> String {
        let parts = fields(unixSeconds)
        return day(unixSeconds) + " " + Wording.timeOfDay([Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec)])
    }

    /// The Unix time of midnight starting the day of `unixSeconds`, `daysBack` days before.
    func midnight(of unixSeconds: Int64, daysBack: Int32 = 0) -> Int64? {
        var parts = fields(unixSeconds)
        (parts.tm_hour, parts.tm_min, parts.tm_sec) = (0, 0, 0)
        parts.tm_mday -= daysBack
        return unixTime(parts)
    }
}

/// `tocsin log --since DATE`'s date, on `clock`: `today`, `yesterday` (their
/// midnight), `2026-11-29` (its midnight), `2026-11-29 14:00[:SS]` (also with
/// a T between), or a time back from now: `7d` (days), `12h` (hours).
package enum HistorySince {
    /// The Unix time `text` names.
    /// - Throws: `CommandFailure` (usage) naming what it takes.
    package static func unixSeconds(_ text: String, now: Int64, clock: WallClock = .system) throws(CommandFailure) -> Int64 {
        let word = text.trimmingSpaces().lowercased()
        let found: Int64? = switch word {
        case "today": clock.midnight(of: now)
        case "yesterday": clock.midnight(of: now, daysBack: 1)
        default: back(word, from: now) ?? date(word, clock: clock)
        }
        guard let found else {
            throw CommandFailure(tr("'{text}' is not a date: --since takes today, yesterday, 2026-11-29, '2026-11-29 14:00', or a time back from now: 7d (days), 12h (hours)",
                                    ["text": text]), status: ExitStatus.usage)
        }
        return found
    }

    /// `7d`, `12h`: that long before `now`.
    private static func back(_ word: String, from now: Int64) -> Int64? {
        guard let unit = word.last, let count = Int64(word.dropLast()), count >= 0, count <= 100_000 else { return nil }
        switch unit {
        case "d": return now - count * 86400
        case "h": return now - count * 3600
        default: return nil
        }
    }

    /// `2026-11-29`, `2026-11-29 14:00`, `2026-11-29 14:00:30` (or a T between).
    private static func date(_ word: String, clock: WallClock) -> Int64? {
        let parts = word.split(whereSeparator: { $0 == " " || $0 == "t" }).map(String.init)
        guard (1...2).contains(parts.count) else { return nil }
        let day = parts[0].split(separator: "-", omittingEmptySubsequences: false).map { Int32($0) }
        let time = parts.count == 2 ? parts[1].split(separator: ":", omittingEmptySubsequences: false).map { Int32($0) } : [0, 0]
        guard day.count == 3, parts[0].count == 10, (2...3).contains(time.count),
              let year = day[0], let month = day[1], let date = day[2], let hour = time[0], let minute = time[1],
              (1...12).contains(month), (1...31).contains(date), (0...23).contains(hour), (0...59).contains(minute)
        else { return nil }
        let second = time.count == 3 ? time[2] : 0
        guard let second, (0...60).contains(second) else { return nil }
        var fields = tm()
        (fields.tm_year, fields.tm_mon, fields.tm_mday) = (year - 1900, month - 1, date)
        (fields.tm_hour, fields.tm_min, fields.tm_sec) = (hour, minute, second)
        // 2026-02-31 would be March 3rd: refused by its day not matching.
        guard let unix = clock.unixTime(fields), clock.fields(unix).tm_mon == month - 1, clock.fields(unix).tm_mday == date
        else { return nil }
        return unix
    }
}

extension String {
    /// Without spaces at either end.
    fileprivate func trimmingSpaces() -> String {
        String(drop(while: { $0 == " " }).reversed().drop(while: { $0 == " " }).reversed())
    }
}
