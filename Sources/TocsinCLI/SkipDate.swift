import Tocsin
import TocsinBase

/// `tocsin skip --until DATE`'s date: `2026-12-27` (its midnight) or
/// `2026-12-27 18:00[:SS]` (also with a T between), optionally followed by a
/// time zone (`Asia/Tokyo`), read in that zone, else in the alarm's own (its
/// spec's zone; the local one for a spec without). Read by the calendar
/// spec machinery, so a time that a daylight-saving change skips is the
/// moment of the change, and one that occurs twice the first of them.
package enum SkipDate {
    /// The Unix time `text` names, after `now`.
    ///
    /// - Throws: `CommandFailure` (usage) naming what is wrong: not a date,
    ///   an unknown zone, a date not after now.
    package static func unixSeconds(_ text: String, alarmZone: String?, now: Int64) throws(CommandFailure) -> Int64 {
        var words = text.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        if words.count == 1, let t = words[0].firstIndex(of: "T") {  // 2026-12-27T18:00
            words = [String(words[0][..<t]), String(words[0][words[0].index(after: t)...])]
        }
        let usage = tr("give --until a date, or a date and time: 2026-12-27, '2026-12-27 18:00' (optionally a zone after it)")
        let notADate = CommandFailure(tr("'{text}' is not a date: {usage}", ["text": text, "usage": usage]), status: ExitStatus.usage)
        guard (1...3).contains(words.count), isDate(words[0]) else { throw notADate }
        let hasTime = words.count >= 2 && isTime(words[1])
        let time = hasTime ? words[1] : "00:00:00"
        let rest = words.dropFirst(hasTime ? 2 : 1)
        guard rest.count <= 1 else { throw notADate }
        let zone = rest.first ?? alarmZone
        let specText = "\(words[0]) \(time)" + (zone.map { " " + $0 } ?? "")
        let spec: CalendarSpec
        do throws(CalendarSpecError) {
            spec = try CalendarSpec(parsing: specText)
        } catch {
            throw CommandFailure(tr("'{text}' is not a date: {error} ({usage})", ["text": text, "error": "\(error)", "usage": usage]),
                                 status: ExitStatus.usage)
        }
        guard let rules = spec.zoneRules() else {
            throw CommandFailure(tr("no time zone '{zone}' on this system", ["zone": zone ?? ""]), status: ExitStatus.usage)
        }
        guard let instant = spec.next(after: now, in: rules) else {
            throw CommandFailure(tr("{text} is not after now: skip until a date to come", ["text": text]), status: ExitStatus.usage)
        }
        return instant
    }

    /// YYYY-MM-DD.
    static func isDate(_ word: String) -> Bool {
        let parts = word.split(separator: "-", omittingEmptySubsequences: false)
        return parts.count == 3 && parts.allSatisfy { !$0.isEmpty && $0.allSatisfy(\.isNumber) } && parts[0].count == 4
    }

    /// HH:MM or HH:MM:SS.
    private static func isTime(_ word: String) -> Bool {
        let parts = word.split(separator: ":", omittingEmptySubsequences: false)
        return (2...3).contains(parts.count) && parts.allSatisfy { !$0.isEmpty && $0.count <= 2 && $0.allSatisfy(\.isNumber) }
    }
}
