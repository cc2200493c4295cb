import Tocsin
import TocsinBase
import TocsinNotify
import TocsinService

/// Reading an alarms file: every line checked before any alarm is made,
/// the first mistake named by line and column.
extension AlarmFile {
    /// The alarms of `text`. `now` (Unix seconds): an `at` time must be
    /// after it; a `skip_until` before it is dropped (that skip is over).
    ///
    /// - Throws: the first `Mistake`.
    package static func parse(_ text: String, now: Int64) throws(Mistake) -> AlarmFile {
        var entries: [Entry] = []
        // Windows line endings too ("\r\n" is one Character in Swift), and
        // a byte-order mark before the first line.
        let text = text.hasPrefix("\u{FEFF}") ? String(text.dropFirst()) : text
        let lines = text.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r\n" }
        for (index, line) in lines.enumerated() {
            let words = try Self.words(of: Substring(line), line: index + 1)
            guard !words.isEmpty else { continue }
            entries.append(try entry(words, line: index + 1, now: now))
        }
        return AlarmFile(entries: entries)
    }

    /// A word of a line: its text (unquoted), its column (1-based, in
    /// characters) and whether it was quoted.
    struct Word {
        var text: String
        var column: Int
        var quoted = false
        /// The column just after it.
        var end = 0
    }

    /// The words of a line: runs of non-blanks, or double-quoted strings
    /// (`\"`, `\\`, `\n`, `\t`); `name="a b"` is one word. A `#` that begins
    /// a word begins a comment.
    static func words(of line: Substring, line number: Int) throws(Mistake) -> [Word] {
        var words: [Word] = []
        var characters = Array(line)
        if characters.last == "\r" { characters.removeLast() }
        var index = 0
        while index < characters.count {
            if characters[index] == " " || characters[index] == "\t" { index += 1; continue }
            if characters[index] == "#" { break }
            var word = Word(text: "", column: index + 1)
            while index < characters.count, characters[index] != " ", characters[index] != "\t" {
                guard characters[index] == "\"" else {
                    word.text.append(characters[index])
                    index += 1
                    continue
                }
                let opening = index + 1
                word.quoted = true
                index += 1
                while true {
                    guard index < characters.count else {
                        throw Mistake(line: number, column: opening, message: tr("this quote is not closed"))
                    }
                    let character = characters[index]
                    index += 1
                    if character == "\"" { break }
                    guard character == "\\" else { word.text.append(character); continue }
                    guard index < characters.count else { throw Mistake(line: number, column: index, message: tr("a \\ ends the line")) }
                    switch characters[index] {
                    case "\"", "\\": word.text.append(characters[index])
                    case "n": word.text.append("\n")
                    case "r": word.text.append("\r")
                    case "t": word.text.append("\t")
                    default:
                        throw Mistake(line: number, column: index,
                                      message: tr("unknown escape \\{character} (\\\" \\\\ \\n \\r \\t)", ["character": String(characters[index])]))
                    }
                    index += 1
                }
            }
            word.end = index + 1
            words.append(word)
        }
        return words
    }

    private static func entry(_ words: [Word], line: Int, now: Int64) throws(Mistake) -> Entry {
        func fail(_ word: Word, _ message: String) -> Mistake { Mistake(line: line, column: word.column, message: message) }
        let kinds = Kind.allCases.map(\.rawValue).joined(separator: ", ")
        guard let kind = Kind(rawValue: words[0].text), !words[0].quoted else {
            throw fail(words[0], tr("'{word}' is no kind of alarm ({kinds})", ["word": words[0].text, "kinds": kinds]))
        }
        guard words.count >= 3 else {
            let end = Word(text: "", column: (words.last?.end ?? 1) + 1)
            throw fail(end, words.count == 1 ? tr("{kind} needs its time and a label", ["kind": kind.rawValue]) : tr("a label (in quotes) is missing"))
        }
        var entry = Entry(kind: kind)
        entry.line = line
        let when = words[1]
        switch kind {
        case .every:
            do throws(CalendarSpecError) {
                entry.spec = try CalendarSpec(parsing: when.text).normalized
            } catch {
                throw fail(when, tr("bad calendar spec '{spec}': {error}", ["spec": when.text, "error": "\(error)"]))
            }
        case .at:
            guard let time = Self.unixSeconds(wallTime: when.text) else {
                throw fail(when, tr("'{word}' is not a time: write \"2026-12-01 07:00:00 +01:00\"", ["word": when.text]))
            }
            guard time > now else { throw fail(when, tr("{word} has passed", ["word": when.text])) }
            entry.time = time
        case .countdown:
            guard let length = Self.duration(when.text), length > 0 else {
                throw fail(when, tr("'{word}' is not a length: write 25m, 1h30m, 90s", ["word": when.text]))
            }
            entry.time = length
        }
        entry.label = words[2].text
        guard entry.label.utf8.count <= TimerEngine.maxLabelBytes else {
            throw fail(words[2], tr("the label is longer than {count} bytes", ["count": String(TimerEngine.maxLabelBytes)]))
        }
        var seen: Set<String> = []
        for word in words.dropFirst(3) {
            try setting(word, of: &entry, seen: &seen, now: now, fail: fail)
        }
        return entry
    }

    private static func setting(_ word: Word, of entry: inout Entry, seen: inout Set<String>, now: Int64,
                                fail: (Word, String) -> Mistake) throws(Mistake) {
        guard let equals = word.text.firstIndex(of: "="), !word.quoted || word.text[..<equals].allSatisfy({ $0 != "\"" }) else {
            throw fail(word, tr("'{word}' is not a setting: write name=value ({names})", ["word": word.text, "names": settingNames.joined(separator: ", ")]))
        }
        let name = String(word.text[..<equals]), value = String(word.text[word.text.index(after: equals)...])
        let at = Word(text: value, column: word.column + name.count + 1)
        guard settingNames.contains(name) else {
            throw fail(word, tr("unknown setting '{name}' ({names})", ["name": name, "names": settingNames.joined(separator: ", ")]))
        }
        guard seen.insert(name).inserted else { throw fail(word, tr("{name} is set twice", ["name": name])) }
        if let field = AlarmSettings.Field(rawValue: name) {
            let parsed: AlarmSettings.Value? = switch field.unit {
            case .flag: flag(value).map { .flag($0) }
            case .nanoseconds: duration(value).map { .nanoseconds($0) }
            case .text, .choice: .text(value)
            case .decibels: Double(value).flatMap { $0.isFinite ? .decibels($0) : nil }
            }
            guard let parsed else {
                let form = switch field.unit {
                case .flag: tr("yes or no")
                case .nanoseconds: tr("a length (30s, 5m, 1h30m, or 0)")
                case .text: tr("text")
                case .choice: field.choices.joined(separator: ", ")
                case .decibels: tr("a number of dB (-10)")
                }
                throw fail(at, tr("{name} takes {form}, not '{value}'", ["name": name, "form": form, "value": value]))
            }
            if let problem = AlarmSettings.problem(with: parsed, for: field) { throw fail(at, problem) }
            if field == .notice, entry.kind == .countdown { throw fail(word, tr("notice is for alarms (every, at); a countdown's is warn")) }
            entry.settings[field] = parsed
            return
        }
        switch name {
        case "wake":
            guard let on = flag(value) else { throw fail(at, tr("wake takes yes or no, not '{value}'", ["value": value])) }
            guard entry.kind != .countdown || !on else { throw fail(word, tr("a countdown does not wake the machine")) }
            entry.wake = on
        case "skip_until":
            guard entry.kind == .every else { throw fail(word, tr("skip_until is for calendar alarms (every)")) }
            // A bare date too, as `skip --until` takes it: its midnight in the alarm's zone.
            let zone = (try? CalendarSpec(parsing: entry.spec, checkingZone: false))?.zone
            guard let time = unixSeconds(wallTime: value)
                    ?? (SkipDate.isDate(value) ? try? SkipDate.unixSeconds(value, alarmZone: zone, now: 0) : nil) else {
                throw fail(at, tr("'{value}' is not a time: write skip_until=\"2026-12-27 00:00:00 +01:00\"", ["value": value]))
            }
            entry.skipUntil = time > now ? time : nil  // a skip that is over is none
        case "exec":
            guard value.contains(where: { !$0.isWhitespace }) else { throw fail(at, tr("exec takes a shell command, not nothing")) }
            guard value.utf8.count <= TimerService.Limits.textBytes else {
                throw fail(at, tr("exec is at most {count} bytes", ["count": String(TimerService.Limits.textBytes)]))
            }
            entry.command = value
        default:  // state
            guard let state = State(rawValue: value) else { throw fail(at, tr("state is running, paused or off, not '{value}'", ["value": value])) }
            guard state != .paused || entry.kind == .countdown else {
                throw fail(at, tr("an alarm is running or off (it follows the wall clock: a pause would not hold it)"))
            }
            entry.state = state
        }
    }

    static func flag(_ text: String) -> Bool? {
        switch text {
        case "yes", "true", "on": true
        case "no", "false", "off": false
        default: nil
        }
    }

    /// A length: "0", or what a countdown takes (90s, 25m, 1h30m, 12m30.25s).
    static func duration(_ text: String) -> Int64? {
        if text == "0" { return 0 }
        guard case .duration(let nanoseconds)? = TimeSpec.parseDuration(text) else { return nil }
        return nanoseconds
    }

    /// "2026-12-01 07:00:00 +01:00" (or "Z", or "+0100") as a Unix time.
    static func unixSeconds(wallTime text: String) -> Int64? {
        let parts = text.split(separator: " ")
        guard parts.count == 3 else { return nil }
        let date = parts[0].split(separator: "-", omittingEmptySubsequences: false).map { Int($0) }
        let time = parts[1].split(separator: ":", omittingEmptySubsequences: false).map { Int($0) }
        guard date.count == 3, time.count == 3, let year = date[0], let month = date[1], let day = date[2],
              let hour = time[0], let minute = time[1], let second = time[2],
              (1...12).contains(month), (1...31).contains(day), (0...23).contains(hour), (0...59).contains(minute),
              (0...60).contains(second), (1970...9999).contains(year)
        else { return nil }
        var offset = 0
        if parts[2] != "Z" {
            let zone = parts[2].filter { $0 != ":" }
            guard zone.count == 5, let sign = zone.first, sign == "+" || sign == "-",
                  let hours = Int(zone.dropFirst().prefix(2)), let minutes = Int(zone.suffix(2)), hours < 24, minutes < 60
            else { return nil }
            offset = (sign == "-" ? -1 : 1) * (hours * 3600 + minutes * 60)
        }
        let days = CalendarSpec.days(year: year, month: month, day: day)
        return days * 86400 + Int64(hour * 3600 + minute * 60 + second) - Int64(offset)
    }
}
