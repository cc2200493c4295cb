import Tocsin
import TocsinBase
package import TocsinService

/// What a status bar shows of the timer service's timers (`tocsin ls
/// --format`): one short line about the timer that matters most, a tooltip
/// with every active one, in each bar's own protocol. Pure: the timers as
/// listed, and how long ago each was listed, in; text out.
package enum StatusBar {
    package enum Format: String, CaseIterable, Sendable {
        case plain, waybar, i3bar, i3statusRs = "i3status-rs", polybar
    }

    /// A timer as last listed, and when (monotonic ns).
    package struct Seen {
        package var timer: ServiceClient.Timer
        package var at: Int64

        package init(_ timer: ServiceClient.Timer, at: Int64) {
            self.timer = timer
            self.at = at
        }

        /// It rang (`Finished`) `lateness` seconds before `now`: ringing,
        /// as a list would show it (its times are as of `at`).
        package mutating func rang(label: String, lateness: Double, now: Int64) {
            let ago = lateness - Nanos.seconds(now - at)
            timer.label = label
            timer.rangAgo = ago
            if timer.state == .finished { timer.finishedAgo = ago }
        }
    }

    /// The line's facts, before any format.
    package struct Summary: Equatable, Sendable {
        /// "ringing", "running", "paused" or "idle".
        package var alt = "idle"
        /// "Tea 4:12 +2"; empty when idle.
        package var text = ""
        /// "4:12".
        package var shortText = ""
        /// One line per active timer.
        package var tooltip = ""
        /// Percent done of the first timer, if it counts down.
        package var percentage: Int?
        /// The first timer: its id, label, state, time left or elapsed.
        package var id: UInt64?
        package var label = ""
        package var remaining = ""
        package var elapsed = ""
        /// Active timers in all.
        package var count = 0
    }

    /// One active timer at `now`.
    private struct Active {
        var id: UInt64
        var label: String
        var alt: String
        /// ns left (a countdown or alarm); nil for a stopwatch.
        var remaining: Int64?
        var elapsed: Int64
        /// ns since it rang (ringing ones).
        var rangAgo: Int64?
        var kind: TimerService.Kind?

        /// Ringing first, then running (soonest first, stopwatches after),
        /// then paused.
        var rank: (Int, Int64) {
            switch alt {
            case "ringing": (0, rangAgo ?? 0)
            case "running": remaining.map { (1, $0) } ?? (2, -elapsed)
            default: (3, remaining ?? 0)
            }
        }
    }

    /// How long after it rang a timer counts as ringing when its ring is 0
    /// (the sound plays once).
    static let shortRing = 10 * Nanos.perSecond

    package static func summary(_ timers: [Seen], now: Int64) -> Summary {
        let active = timers.compactMap { Self.active($0, now: now) }.sorted { (a: Active, b: Active) in a.rank < b.rank }
        guard let first = active.first else { return Summary() }
        var summary = Summary()
        summary.alt = first.alt
        summary.count = active.count
        summary.id = first.id
        summary.label = first.label
        summary.remaining = first.remaining.map { Wording.clock($0, roundUp: true) } ?? ""
        summary.elapsed = Wording.clock(first.elapsed, roundUp: false)
        let time = first.alt == "ringing" ? (first.kind == .countdown ? "done" : "rang")
            : first.remaining.map { Wording.clock($0, roundUp: true) } ?? summary.elapsed
        summary.shortText = time
        summary.text = (first.label.isEmpty ? "" : first.label + " ") + time + (first.alt == "paused" ? " (paused)" : "")
            + (active.count > 1 ? " +\(active.count - 1)" : "")
        if let remaining = first.remaining, first.alt != "ringing" {
            let total: Int64 = first.elapsed + remaining
            let done: Double = total > 0 ? Double(first.elapsed) / Double(total) : 1
            summary.percentage = Int(done * 100)
        }
        summary.tooltip = active.map(line).joined(separator: "\n")
        return summary
    }

    private static func active(_ seen: Seen, now: Int64) -> Active? {
        let timer = seen.timer
        let passed = max(0, now - seen.at)
        let state = timer.state
        let ring = timer.ring.map(Nanos.saturating(seconds:)).map { $0 > 0 ? $0 : shortRing } ?? 60 * Nanos.perSecond
        var entry = Active(id: timer.id, label: timer.label, alt: "running",
                           remaining: timer.remaining.map(Nanos.saturating(seconds:)),
                           elapsed: Nanos.saturating(seconds: timer.elapsed), kind: timer.kind)
        // Rang a moment ago (a finished one, or a calendar alarm, which runs on).
        if let ago = (state == .finished ? timer.finishedAgo : timer.rangAgo).map(Nanos.saturating(seconds:)), ago + passed < ring {
            entry.alt = "ringing"
            entry.rangAgo = ago + passed
            return entry
        }
        switch state {
        case .running:
            entry.remaining = entry.remaining.map { max(0, $0 - passed) }
            entry.elapsed += passed
        case .suspended:
            entry.alt = "paused"
        default:
            return nil
        }
        return entry
    }

    /// Time left as `tocsin ls` writes it, in English: "04:59", "1:04:59",
    /// "1d 12:14:59" past a day.
    package static func left(_ nanoseconds: Int64) -> String {
        guard let (days, clock) = Nanos.days(nanoseconds, roundUp: true) else { return Wording.clock(nanoseconds, roundUp: true) }
        return "\(days)d \(clock)"
    }

    private static func line(_ timer: Active) -> String {
        let name = timer.label.isEmpty ? "Timer \(timer.id)" : timer.label
        switch timer.alt {
        case "ringing":
            return "\(name) \(timer.kind == .countdown ? "finished" : "rang") \(Wording.clock(timer.rangAgo ?? 0, roundUp: false)) ago"
        default:
            let time = timer.remaining.map { "\(Self.left($0)) left" } ?? "\(Wording.clock(timer.elapsed, roundUp: false)) elapsed"
            return "\(name)  \(time)" + (timer.alt == "paused" ? ", paused" : "")
        }
    }

    // MARK: - Formats

    /// `summary` as `format` writes one update (without its newline), or
    /// through `template` (placeholders {text} {label} {remaining}
    /// {elapsed} {state} {percent} {count} {id}).
    package static func render(_ summary: Summary, format: Format, template: String? = nil, command: String = "tocsin") -> String {
        let text = template.map { fill($0, with: summary) } ?? summary.text
        switch format {
        case .plain:
            return text
        case .waybar:
            return JSON.object([
                ("text", .string(text)), ("alt", .string(summary.alt)), ("tooltip", .string(summary.tooltip)),
                ("class", .string(summary.alt)), ("percentage", .integer(Int64(summary.percentage ?? 0))),
            ]).compactEncoded()
        case .i3statusRs:
            let state = ["ringing": "Critical", "running": "Info", "paused": "Warning"][summary.alt] ?? "Idle"
            return JSON.object([
                ("icon", .string("time")), ("state", .string(state)), ("text", .string(text)),
                ("short_text", .string(summary.shortText)),
            ]).compactEncoded()
        case .i3bar:
            var block: [(String, JSON)] = [("name", .string("tocsin")), ("full_text", .string(text)),
                                           ("short_text", .string(summary.shortText))]
            if summary.alt == "ringing" { block.append(("urgent", .bool(true))) }
            return JSON.array([.object(block)]).compactEncoded()
        case .polybar:
            guard let action = clickAction(summary), let id = summary.id else { return polybarEscaped(text) }
            // %{A1:command:}text%{A}: a click runs it; ':' in the command is escaped.
            let run = "\(command) \(action) \(id)".replacingColons()
            return "%{A1:\(run):}\(polybarEscaped(text))%{A}"
        }
    }

    /// The i3bar protocol's header and the opening of its endless array.
    package static let i3barHeader = #"{"version":1,"click_events":true}"# + "\n["

    /// What a click on the bar does to the first timer: pause a running
    /// one, resume a paused one, snooze a ringing one; nil when idle.
    package static func clickAction(_ summary: Summary) -> String? {
        switch summary.alt {
        case "running": "pause"
        case "paused": "resume"
        case "ringing": "snooze"
        default: nil
        }
    }

    private static func fill(_ template: String, with summary: Summary) -> String {
        let values: [(String, String)] = [
            ("{text}", summary.text), ("{label}", summary.label), ("{remaining}", summary.remaining),
            ("{elapsed}", summary.elapsed), ("{state}", summary.alt), ("{percent}", summary.percentage.map(String.init) ?? ""),
            ("{count}", String(summary.count)), ("{id}", summary.id.map(String.init) ?? ""),
        ]
        var result = template
        for (placeholder, value) in values { result = result.replacingAll(placeholder, with: value) }
        return result
    }

    /// Polybar formatting tags start with "%{": a label's "%" is doubled.
    private static func polybarEscaped(_ text: String) -> String {
        text.replacingAll("%", with: "%%")
    }
}

extension String {
    /// Every occurrence of `target` replaced (without Foundation).
    func replacingAll(_ target: String, with replacement: String) -> String {
        guard !target.isEmpty else { return self }
        var result = ""
        var rest = self[...]
        while let range = rest.firstRange(of: target) {
            result += rest[..<range.lowerBound] + replacement
            rest = rest[range.upperBound...]
        }
        return result + rest
    }

    /// ':' escaped for a polybar action command.
    func replacingColons() -> String { replacingAll(":", with: "\\:") }
}
