import Tocsin
import TocsinBase
package import TocsinNotify
package import TocsinService

/// The alarms file of `tocsin export` and `tocsin import` (docs/alarms-file.md):
/// plain text, one alarm per line, comments after `#`:
///
///     every "Mon..Fri *-*-* 07:00:00" "Wake" notice=30m snooze=10m
///     at "2026-12-01 07:00:00 +01:00" "Dentist" ring=2m
///     countdown 12m30s "Tea" state=paused
///
/// A line is its kind, when (a calendar spec, a wall time with its UTC
/// offset, a length), the label, then `name=value` settings where they are
/// not the defaults. Written and read here; the service is asked by the
/// commands.
package struct AlarmFile: Equatable, Sendable {
    package enum Kind: String, Sendable, CaseIterable {
        /// A calendar alarm (`tocsin every`).
        case every
        /// A one-time alarm at a wall time (`tocsin until`).
        case at
        /// A countdown (`export --all` only).
        case countdown
    }

    /// How a timer is left after its import.
    package enum State: String, Sendable, CaseIterable {
        /// Running (the default).
        case running
        /// Paused (a countdown).
        case paused
        /// Not started (an alarm that was cancelled or not yet started).
        case off
    }

    package struct Entry: Equatable, Sendable {
        package var kind: Kind
        /// `every`: the calendar spec.
        package var spec = ""
        /// `at`: the Unix time (seconds); `countdown`: its time left (ns).
        package var time: Int64 = 0
        package var label = ""
        package var settings = AlarmSettings()
        /// Wake the machine for it (alarms; default on).
        package var wake = true
        /// `every`: its rings before this Unix time (seconds) are skipped.
        package var skipUntil: Int64?
        package var state = State.running
        /// The shell command the service runs when it rings (`exec`).
        package var command: String?
        /// Its line in the file (1-based; 0: not read from one).
        package var line = 0

        package init(kind: Kind) {
            self.kind = kind
        }

        package static func == (a: Entry, b: Entry) -> Bool {
            a.text == b.text  // (all but its line number)
        }
    }

    package var entries: [Entry]

    package init(entries: [Entry]) {
        self.entries = entries
    }

    /// A mistake in a file: where and what.
    package struct Mistake: Error, Equatable, CustomStringConvertible {
        package var line: Int
        package var column: Int
        package var message: String
        package var description: String { "\(line):\(column): \(message)" }
    }

    /// The settings a line may have, by name: the alarm settings' own
    /// (`AlarmSettings.Field`), then the file's.
    static let settingNames = AlarmSettings.Field.allCases.map(\.rawValue) + ["wake", "skip_until", "state", "exec"]
}

extension AlarmFile {
    /// The file's text: a comment saying what it is, then one line per alarm.
    package func text(header: String) -> String {
        (header.split(separator: "\n", omittingEmptySubsequences: false).map { "# " + $0 } + entries.map(\.text))
            .joined(separator: "\n") + "\n"
    }

    /// The alarm a service timer is, for the file; nil for one that has no
    /// place in it (a stopwatch, a finished one, a countdown unless `all`,
    /// one with under a second left).
    package static func entry(of timer: ServiceClient.Timer, all: Bool) -> Entry? {
        let properties = timer.properties
        func number(_ name: String) -> Double? {
            if case .number(let value)? = properties[name] { value } else { nil }
        }
        guard let state = timer.state, state != .finished else { return nil }
        var entry: Entry
        switch timer.kind {
        case .calendar?:
            guard let spec = timer.calendar else { return nil }
            entry = Entry(kind: .every)
            entry.spec = spec
            entry.skipUntil = number("skipped_until").map { Int64($0) }
        case .alarm?:
            guard let time = number("alarm_time") else { return nil }
            entry = Entry(kind: .at)
            entry.time = Int64(time.rounded(.down))
        case .countdown? where all:
            // Its time left, to the second: a paused one exports the same
            // after an import (which pauses it a few ms after its start).
            guard let remaining = timer.remaining.map({ $0.rounded() }), remaining >= 1,
                  let left = Nanos.from(seconds: remaining) else { return nil }
            entry = Entry(kind: .countdown)
            entry.time = left
        default:
            return nil
        }
        entry.label = timer.label
        for field in AlarmSettings.Field.allCases {
            let value: AlarmSettings.Value? = switch (field.unit, properties[field.rawValue]) {
            case (.flag, .flag(let on)?): .flag(on)
            case (.nanoseconds, .number(let seconds)?): Nanos.from(seconds: seconds).map { .nanoseconds($0) }
            case (.decibels, .number(let decibels)?): .decibels(decibels)
            case (.text, .text(let text)?), (.choice, .text(let text)?): .text(text)
            case (.nanoseconds, nil), (.decibels, nil), (.text, nil), (.choice, nil): field.isLeftOutAtZero  // left out: its zero
            default: nil
            }
            if let value { entry.settings[field] = value }
        }
        if case .flag(let wake)? = properties["wake"] { entry.wake = wake }
        entry.command = timer.command
        entry.state = switch state {
        case .suspended: .paused
        case .running: .running
        default: .off
        }
        return entry
    }
}

extension AlarmSettings.Field {
    /// The value a setting `List` leaves out has (`TimerTable`'s columns
    /// left out at zero; a sound file at none); nil if it is always listed.
    fileprivate var isLeftOutAtZero: AlarmSettings.Value? {
        if self == .soundFile || self == .media { return .text("") }
        guard TimerTable.Column(rawValue: rawValue)?.isLeftOutAtZero == true else { return nil }
        return unit == .decibels ? .decibels(0) : .nanoseconds(0)
    }
}

extension AlarmFile.Entry {
    /// The entry's line in the file.
    package var text: String {
        var words: [String] = [kind.rawValue]
        switch kind {
        case .every: words.append(AlarmFile.quoted(spec))
        case .at: words.append(AlarmFile.quoted(AlarmFile.wallTime(time)))
        case .countdown: words.append(AlarmFile.duration(time))
        }
        words.append(AlarmFile.quoted(label))
        let defaults = AlarmSettings()
        for field in AlarmSettings.Field.allCases where settings[field] != defaults[field] {
            words.append("\(field.rawValue)=" + AlarmFile.value(settings[field]))
        }
        if !wake && kind != .countdown { words.append("wake=no") }
        if let skipUntil { words.append("skip_until=" + AlarmFile.quoted(AlarmFile.wallTime(skipUntil))) }
        if state != .running { words.append("state=\(state.rawValue)") }
        if let command { words.append("exec=" + AlarmFile.quoted(command)) }
        return words.joined(separator: " ")
    }
}

extension AlarmFile {
    /// A setting's value as the file writes it.
    static func value(_ value: AlarmSettings.Value) -> String {
        switch value {
        case .flag(let on): on ? "yes" : "no"
        case .nanoseconds(let nanoseconds): duration(nanoseconds)
        case .text(let text): quoted(text)
        case .decibels(let decibels): decibels == decibels.rounded() ? String(Int(decibels)) : String(decibels)
        }
    }

    /// "1h30m", "25m", "1m30s", "12m30.25s", "0".
    static func duration(_ nanoseconds: Int64) -> String {
        guard nanoseconds > 0 else { return "0" }
        let seconds = nanoseconds / Nanos.perSecond, fraction = nanoseconds % Nanos.perSecond
        var text = ""
        if seconds >= 3600 { text += "\(seconds / 3600)h" }
        if seconds % 3600 >= 60 { text += "\(seconds % 3600 / 60)m" }
        if seconds % 60 > 0 || fraction > 0 {
            var digits = String(fraction + Nanos.perSecond).dropFirst()  // nine digits
            while digits.last == "0" { digits.removeLast() }
            text += "\(seconds % 60)" + (digits.isEmpty ? "" : "." + digits) + "s"
        }
        return text
    }

    /// "2026-12-01 07:00:00 +01:00": a Unix time on the local clocks, with
    /// their offset (so the file says the instant wherever it is read).
    static func wallTime(_ unixSeconds: Int64) -> String {
        String(ZoneRules.local().wallText(unixSeconds: unixSeconds).dropFirst(4))  // without the weekday
    }

    /// `text` in double quotes, `"` and `\` escaped, and the characters
    /// that would break the one-alarm-a-line rule (a line feed, a carriage
    /// return) or hide in it (a tab).
    static func quoted(_ text: String) -> String {
        var quoted = "\""
        for character in text {
            switch character {
            case "\"": quoted += "\\\""
            case "\\": quoted += "\\\\"
            case "\n": quoted += "\\n"
            case "\r": quoted += "\\r"
            case "\r\n": quoted += "\\r\\n"  // (one Character in Swift)
            case "\t": quoted += "\\t"
            default: quoted.append(character)
            }
        }
        return quoted + "\""
    }
}
