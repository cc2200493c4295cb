import Tocsin
import TocsinBase
import TocsinService

/// `tocsin log`'s output: the history's lines as a table for people, as CSV
/// (RFC 4180 quoting, a header row, lines ending in LF) or as they are
/// (JSON lines), and the totals of the time timers ran, by label or by day.
package enum HistoryReport {
    /// What `--sum-by` totals by.
    package enum SumBy: String, CaseIterable, Sendable {
        case label, day
    }

    /// One total of `--sum-by`: the label or day (`2026-11-29`), the
    /// seconds its lines ran, and how many lines.
    package struct Sum: Equatable, Sendable {
        package var key: String
        package var seconds: Double
        package var count: Int

        package init(key: String, seconds: Double, count: Int) {
            self.key = key
            self.seconds = seconds
            self.count = count
        }
    }

    /// The table: a header, then a line each: local date and time, event,
    /// label (an id for none), duration ("25:00", "00:01.5").
    package static func table(_ lines: [HistoryLine], clock: WallClock = .system) -> [String] {
        let rows = lines.map { line in
            let record = line.record
            return [clock.dateAndTime(Int64(record.at.rounded(.down))), record.event.rawValue, shownLabel(record),
                    record.duration.map(shownDuration) ?? ""]
        }
        return aligned([[tr("TIME"), tr("EVENT"), tr("LABEL"), tr("DURATION")]] + rows, rightAligned: [3])
    }

    /// The CSV: a header row, then a row per line.
    package static func csv(_ lines: [HistoryLine], clock: WallClock = .system) -> [String] {
        let header = "at,time,event,id,label,kind,duration,started,snooze,late,owner"
        return [header] + lines.map { line in
            let record = line.record
            let numbers = [record.duration, record.started, record.snooze, record.late].map { $0.map(number) ?? "" }
            return ([number(record.at), clock.dateAndTime(Int64(record.at.rounded(.down))), record.event.rawValue, String(record.id),
                     record.label, record.kind] + numbers + [record.owner ?? ""]).map(csvField).joined(separator: ",")
        }
    }

    /// The totals of the time that timers ran, by `key`: each `finish`
    /// (countdowns and alarms) and `stop` (stopwatches) line's duration;
    /// cancelled runs, rings and snoozes are not counted. In the order each
    /// key first appears.
    package static func sums(_ lines: [HistoryLine], by key: SumBy, clock: WallClock = .system) -> [Sum] {
        var sums: [Sum] = []
        var index: [String: Int] = [:]
        for line in lines {
            let record = line.record
            guard record.event == .finish || record.event == .stop, let duration = record.duration else { continue }
            let name = key == .label ? record.label : clock.day(Int64(record.at.rounded(.down)))
            if let at = index[name] {
                sums[at].seconds += duration
                sums[at].count += 1
            } else {
                index[name] = sums.count
                sums.append(Sum(key: name, seconds: duration, count: 1))
            }
        }
        return sums
    }

    /// The totals as a table: label (or day), total, how many.
    package static func sumTable(_ sums: [Sum], by key: SumBy) -> [String] {
        let rows = sums.map { sum in
            [key == .label && sum.key.isEmpty ? tr("(no label)") : sum.key, shownDuration(sum.seconds), String(sum.count)]
        }
        return aligned([[key == .label ? tr("LABEL") : tr("DAY"), tr("TOTAL"), tr("TIMES")]] + rows, rightAligned: [1, 2])
    }

    /// The totals as CSV: `label,seconds,count` (or `day,…`).
    package static func sumCSV(_ sums: [Sum], by key: SumBy) -> [String] {
        ["\(key.rawValue),seconds,count"] + sums.map { [csvField($0.key), number($0.seconds), String($0.count)].joined(separator: ",") }
    }

    /// The totals as JSON lines: `{"label":"Work","seconds":3000.0,"count":2}`.
    package static func sumJSON(_ sums: [Sum], by key: SumBy) -> [String] {
        sums.map { JSON.object([(key.rawValue, .string($0.key)), ("seconds", .number($0.seconds)), ("count", .integer(Int64($0.count)))]).compactEncoded() }
    }

    /// A CSV field (RFC 4180): quoted when it holds a comma, a quote, or a
    /// line break, a quote inside doubled.
    package static func csvField(_ text: String) -> String {
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" || $0 == "\r\n" }) else { return text }
        return "\"" + text.split(separator: "\"", omittingEmptySubsequences: false).joined(separator: "\"\"") + "\""
    }

    /// A number of seconds as the JSON lines write it ("1500.0", "0.25").
    private static func number(_ seconds: Double) -> String {
        JSON.number(seconds).compactEncoded()
    }

    private static func shownDuration(_ seconds: Double) -> String {
        Display.total(nanoseconds: Nanos.from(seconds: max(0, seconds)) ?? 0)
    }

    private static func shownLabel(_ record: HistoryRecord) -> String {
        record.label.isEmpty ? tr("timer {id}", ["id": String(record.id)]) : record.label
    }

    /// `rows` in columns two spaces apart (by characters), without spaces
    /// at the ends of lines.
    private static func aligned(_ rows: [[String]], rightAligned: Set<Int>) -> [String] {
        let columns = rows.map(\.count).max() ?? 0
        let widths = (0..<columns).map { column in rows.map { $0.count > column ? $0[column].count : 0 }.max() ?? 0 }
        return rows.map { row in
            let line = row.enumerated().map { column, text in
                let padding = String(repeating: " ", count: widths[column] - text.count)
                return rightAligned.contains(column) ? padding + text : text + padding
            }.joined(separator: "  ")
            return String(line.reversed().drop(while: { $0 == " " }).reversed())
        }
    }
}
