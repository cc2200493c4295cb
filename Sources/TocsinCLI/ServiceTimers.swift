package import Tocsin
import TocsinBase
package import TocsinService

/// The timer service's timers as the command shows and names them: a
/// TIMER word resolved to an id, `ls`'s lines and JSON objects, and
/// `ls --follow`'s lines for each change.
package enum ServiceTimers {
    /// The timer `word` names: its id, an exact label, or a label's unique
    /// prefix.
    ///
    /// - Throws: status 1 when none matches; status 2 (usage) when several
    ///   do, naming them.
    package static func resolve(_ word: String, in timers: [ServiceClient.Timer]) throws(CommandFailure) -> UInt64 {
        guard !word.isEmpty else {  // the prefix of every label
            throw CommandFailure(tr("an empty name names no timer: give an id or a label (tocsin ls lists them)"), status: ExitStatus.usage)
        }
        if let id = UInt64(word), timers.contains(where: { $0.id == id }) { return id }
        let exact = timers.filter { $0.label == word }
        let candidates = exact.isEmpty ? timers.filter { $0.label.hasPrefix(word) } : exact
        if candidates.count > 1, let current = current(of: candidates, in: timers) { return current }
        switch candidates.count {
        case 1:
            return candidates[0].id
        case 0:
            throw CommandFailure(tr("no timer {name} (tocsin ls lists them)", ["name": word]))
        default:
            let names = candidates.map { "\($0.id) \($0.label)" }.joined(separator: ", ")
            throw CommandFailure(tr("{name} could be any of: {timers}; give the id", ["name": word, "timers": names]), status: ExitStatus.usage)
        }
    }

    /// Of several timers with one name, the one a person means when they
    /// are rounds of a sequence (`25m:Work 5m:Break --repeat 4`): the one
    /// running or paused while the others wait or are over, else the
    /// waiting one that comes first. Nil if they are not so (two timers
    /// of their own that share a label stay ambiguous).
    private static func current(of candidates: [ServiceClient.Timer], in timers: [ServiceClient.Timer]) -> UInt64? {
        let live = candidates.filter(\.isLive)
        let waiting = candidates.filter(\.isWaiting)
        guard waiting.count + live.count + candidates.filter(\.isOver).count == candidates.count, !waiting.isEmpty
        else { return nil }  // a sequence has timers waiting their turn
        if live.count == 1 { return live[0].id }
        guard live.isEmpty else { return nil }
        // The waiting one with the fewest timers before it in its sequence.
        let byID = Dictionary(timers.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        func place(_ timer: ServiceClient.Timer) -> Int {
            var count = 0
            var next = timer
            while let before = next.after, let previous = byID[before], previous.isWaiting, count < timers.count {
                count += 1
                next = previous
            }
            return count
        }
        let places = waiting.map(place)
        guard let first = places.min(), places.filter({ $0 == first }).count == 1 else { return nil }
        return waiting[places.firstIndex(of: first) ?? 0].id
    }

    /// The label of timer `id` (its id if it has none or is not listed).
    package static func label(of id: UInt64, in timers: [ServiceClient.Timer]) -> String {
        timers.first { $0.id == id }?.label ?? String(id)
    }

    /// One line per timer: id, label, state, time left (or elapsed, or
    /// how long ago it finished), in columns; in the user's language.
    /// `columns`: the terminal's width (0: no limit, as in a pipe): labels
    /// are cut ("…") so that each line fits, the label column never
    /// narrower than 10.
    package static func lines(_ timers: [ServiceClient.Timer], columns: Int = 0) -> [String] {
        var widths = Widths()
        return lines(timers, columns: columns, widths: &widths)
    }

    /// The columns' widths `lines` used, at least: `ls --follow` keeps
    /// them from its listing on, so its lines stay in columns.
    package struct Widths {
        var id = 1, label = 0, state = 9
        package init() {}
        init(id: Int, label: Int, state: Int) { (self.id, self.label, self.state) = (id, label, state) }
    }

    package static func lines(_ timers: [ServiceClient.Timer], columns: Int = 0, widths: inout Widths) -> [String] {
        var width = max(5, widths.label, timers.map { $0.label.count }.max() ?? 5)
        let idWidth = max(widths.id, timers.map { String($0.id).count }.max() ?? 1)
        let states = timers.map { timer in timer.isWaiting ? "waiting" : Display.state(timer.state?.description ?? "?") }
        let stateWidth = max(widths.state, states.map { Display.shown(state: $0).count }.max() ?? 9)
        let details = zip(timers, states).map { detail(of: $0, state: $1) }
        if columns > 0 {
            let rest = idWidth + 2 + 2 + stateWidth + 2 + (details.map(\.count).max() ?? 0)
                + (timers.compactMap { $0.owner.map { $0.count + 4 } }.max() ?? 0)
                + (timers.compactMap { $0.command.map { runs($0).count + 2 } }.max() ?? 0)
            width = min(width, max(10, columns - 1 - rest))
        }
        widths = Widths(id: idWidth, label: width, state: stateWidth)
        return zip(zip(timers, states), details).map { pair, detail in
            let (timer, state) = pair
            let id = String(timer.id)
            var label = timer.label.isEmpty ? "-" : timer.label
            if label.count > width { label = String(label.prefix(width - 1)) + "…" }
            let shownState = Display.shown(state: state)
            return String(repeating: " ", count: idWidth - id.count) + id + "  "
                + label + String(repeating: " ", count: max(0, width - label.count)) + "  "
                + shownState + String(repeating: " ", count: max(0, stateWidth - shownState.count)) + "  " + detail
                + (timer.owner.map { "  (\($0))" } ?? "") + (timer.command.map { "  " + runs($0) } ?? "")
        }
    }

    /// "runs: notify-send done" (a long command cut short: `ls --json` has it whole).
    private static func runs(_ command: String) -> String {
        let line = command.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
        let shown = line.count > 40 || line.count < command.count ? String(line.prefix(39)) + "…" : line
        return tr("runs: {command}", ["command": shown])
    }

    /// A row's last column: time left, elapsed, how long ago it finished,
    /// or a calendar alarm's spec and next ring.
    private static func detail(of timer: ServiceClient.Timer, state: String) -> String {
        if let calendar = timer.calendar, state != "finished" {  // a calendar alarm: its spec, and when next
            let left = timer.remaining.map(Nanos.saturating(seconds:)).map {
                ", " + tr("{time} left", ["time": Display.until(nanoseconds: $0)])
            } ?? ""
            return state == "cancelled" ? calendar : "\(calendar)\(left)" + skipped(timer)
        }
        if state == "finished" {
            // (Whole seconds, as every "ago" and "left" of the listing.)
            return timer.finishedAgo.map(Nanos.saturating(seconds:)).map {
                tr("done {time} ago", ["time": Display.until(nanoseconds: $0, roundUp: false)])
            } ?? tr("done")
        }
        if let remaining = timer.remaining.map(Nanos.saturating(seconds:)) {
            return tr("{time} left", ["time": Display.until(nanoseconds: remaining)])  // days past a day, as a calendar alarm's
        }
        return tr("{time} elapsed", ["time": Display.stopwatch(nanoseconds: Nanos.saturating(seconds: timer.elapsed))])
    }

    /// A skipped calendar alarm's ", next Mon 2026-12-28 07:00, skipped
    /// until Mon 2026-12-28 00:00" (local time); "" without a skip.
    static func skipped(_ timer: ServiceClient.Timer) -> String {
        guard let until = timer.skippedUntil else { return "" }
        let next = timer.next.map { ", " + tr("next {date}", ["date": Display.localDate(unixSeconds: Int64($0))]) } ?? ""
        return next + ", " + tr("skipped until {date}", ["date": Display.localDate(unixSeconds: Int64(until))])
    }

    /// The order of a timer's members in its JSON object; others follow,
    /// sorted.
    static let memberOrder = ["id", "label", "kind", "state", "elapsed", "remaining", "duration", "alarm_time", "clock",
                              "laps", "after", "finished_ago", "calendar", "next", "rang_ago"]

    /// A timer as one JSON object, after `first` members.
    package static func json(_ timer: ServiceClient.Timer, after first: [(String, JSON)] = []) -> String {
        let properties = timer.properties
        let names = memberOrder.filter { properties[$0] != nil } + properties.keys.filter { !memberOrder.contains($0) }.sorted()
        return JSON.object(first + names.compactMap { name in properties[name].map { (name, json($0)) } }).compactEncoded()
    }

    static func json(_ value: ServiceValue) -> JSON {
        switch value {
        case .id(let id): .integer(Int64(clamping: id))
        case .number(let number): .number(number)
        case .text(let text): .string(text)
        case .flag(let flag): .bool(flag)
        case .numbers(let numbers): .array(numbers.map(JSON.number))
        }
    }

    /// What `ls --follow` says of a finish: a calendar alarm rang (and runs on).
    private static func finishWord(calendar: Bool) -> String {
        // TRANSLATORS: `tocsin ls --follow`: a calendar alarm rang (it runs on to its next ring).
        calendar ? tr("rang") : Display.shown(state: "finished")
    }

    /// `ls --follow`'s line for a change: as `ls` shows the timer, or with
    /// `json` an object whose "event" says what happened. `calendars`: the
    /// ids of the calendar alarms among the timers (a ring of one "rang":
    /// it runs on, and its `Changed` with the next ring follows).
    package static func line(for change: ServiceClient.Change, json: Bool, calendars: Set<UInt64> = []) -> String {
        var widths = Widths()
        return line(for: change, json: json, calendars: calendars, widths: &widths)
    }

    package static func line(for change: ServiceClient.Change, json: Bool, calendars: Set<UInt64>,
                             widths: inout Widths) -> String {
        switch change {
        case .changed(let timer):
            json ? Self.json(timer, after: [("event", .string("changed"))]) : lines([timer], widths: &widths)[0]
        case .finished(let id, let label, let lateness, let finish, let again):
            json ? JSON.object([("event", .string("finished")), ("id", .integer(Int64(clamping: id))),
                                ("label", .string(label)), ("lateness", .number(lateness)),
                                ("finish", .integer(Int64(clamping: finish))), ("again", .bool(again))]).compactEncoded()
                : String(repeating: " ", count: max(0, widths.id - String(id).count)) + "\(id)  "
                    + label + String(repeating: " ", count: max(0, widths.label - label.count)) + "  "
                    + finishWord(calendar: calendars.contains(id))
                    + (again ? " " + tr("(announced again: the service restarted)") : "")
        case .removed(let id):
            json ? JSON.object([("event", .string("removed")), ("id", .integer(Int64(clamping: id)))]).compactEncoded()
                // TRANSLATORS: `tocsin ls --follow`: a timer was removed.
                : String(repeating: " ", count: max(0, widths.id - String(id).count)) + "\(id)  " + tr("removed")
        }
    }
}
