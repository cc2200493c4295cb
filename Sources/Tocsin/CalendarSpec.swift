import Glibc

/// A calendar event in systemd.time(7)'s syntax, parsed and normalized:
/// `Mon..Fri 07:00` is `Mon..Fri *-*-* 07:00:00`. The groundwork of
/// calendar alarms (issue 32): parsing, the normalized form systemd prints,
/// and errors that name the column; occurrences and zones come next.
///
/// Accepted: weekdays (`Mon`, `Mon..Fri`, `Sat,Sun`, full names, any case),
/// a date `[Y-]M-D` or `[Y-]M~D` (days counted back from the month's last,
/// `~01` being the last), a time `h:m[:s]`, each field `*`, a value, a list
/// `a,b`, a range `a..b` and a repetition `a/n` or `a..b/n`; the
/// shorthands `minutely`, `hourly`, `daily`, `weekly`, `monthly`, `yearly`
/// (`annually`), `quarterly`, `semiannually`; a trailing `UTC` or zone
/// name. Whole seconds only.
public struct CalendarSpec: Equatable, Sendable {
    /// One element of a field's list: `start`, `start..stop`, `start/step`
    /// or `start..stop/step`.
    package struct Element: Equatable, Sendable, Comparable {
        package var start: Int
        package var stop: Int?
        package var step: Int?

        package static func < (a: Element, b: Element) -> Bool {
            if a.start != b.start { return a.start < b.start }
            if (a.stop ?? -1) != (b.stop ?? -1) { return (a.stop ?? -1) < (b.stop ?? -1) }
            return (a.step ?? 0) < (b.step ?? 0)
        }
    }

    /// Bit 0 Monday … bit 6 Sunday; all seven when none are given.
    package var weekdays: UInt8 = 0x7F
    /// nil: `*`.
    package var years: [Element]?
    package var months: [Element]?
    package var days: [Element]?
    /// The days count back from the month's last (`~`).
    package var fromMonthEnd = false
    package private(set) var hours: [Element]? = [Element(start: 0)]
    package private(set) var minutes: [Element]? = [Element(start: 0)]
    package private(set) var seconds: [Element]? = [Element(start: 0)]
    /// The hours, minutes and seconds the time fields match, set with them
    /// by the parser: the search for the next occurrence then allocates
    /// nothing.
    private(set) var times = TimeValues(hours: [0], minutes: [0], seconds: [0])

    /// The values of each time field, ascending.
    struct TimeValues: Equatable, Sendable {
        var hours: [Int], minutes: [Int], seconds: [Int]

        init(hours: [Int], minutes: [Int], seconds: [Int]) {
            (self.hours, self.minutes, self.seconds) = (hours, minutes, seconds)
        }

        init(_ spec: CalendarSpec) {
            self.init(hours: CalendarSpec.values(spec.hours, 0...23), minutes: CalendarSpec.values(spec.minutes, 0...59),
                      seconds: CalendarSpec.values(spec.seconds, 0...59))
        }
    }
    /// `UTC` or a zone name; nil: the local zone.
    package var zone: String?

    package init() {}
}

/// Why a calendar spec does not parse: what is wrong, and the column (from
/// 1) where it starts.
public struct CalendarSpecError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What is wrong, in English.
    public var message: String
    /// Where in the spec it starts, counting Unicode scalars from 1.
    public var column: Int

    package init(_ message: String, column: Int) {
        self.message = message
        self.column = column
    }

    /// "column N: message".
    public var description: String { "column \(column): \(message)" }

    /// The most bytes of the spec a reason quotes: with the longest message
    /// and column, every reason fits the 256 bytes tocsin.h promises.
    static let quoteMaxBytes = 64

    /// `text` as a reason quotes it: whole if short, else its first
    /// `quoteMaxBytes` bytes of UTF-8 (cut between characters) and "…".
    static func clipped(_ text: some StringProtocol) -> String {
        guard text.utf8.count > quoteMaxBytes else { return String(text) }
        var kept = String()
        var bytes = 0
        for scalar in text.unicodeScalars {
            bytes += UTF8.width(scalar)
            if bytes > quoteMaxBytes { break }
            kept.unicodeScalars.append(scalar)
        }
        return kept + "…"
    }
}

extension CalendarSpec {
    static let weekdayNames = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
    /// Pairs, not a dictionary: hashing strings would pull Unicode tables
    /// into the Embedded library.
    static let shorthands: [(name: String, spec: String)] = [
        ("minutely", "*-*-* *:*:00"), ("hourly", "*-*-* *:00:00"), ("daily", "*-*-* 00:00:00"),
        ("monthly", "*-*-01 00:00:00"), ("weekly", "Mon *-*-* 00:00:00"), ("yearly", "*-01-01 00:00:00"),
        ("annually", "*-01-01 00:00:00"), ("quarterly", "*-01,04,07,10-01 00:00:00"),
        ("semiannually", "*-01,07-01 00:00:00"),
    ]

    /// ASCII letters lowered, the rest kept: names here are ASCII, and
    /// `lowercased()` would bring 19 KB of Unicode case tables.
    static func asciiLowercased(_ text: String) -> String {
        String(decoding: text.utf8.map { (65...90).contains($0) ? $0 + 32 : $0 }, as: UTF8.self)
    }

    /// Whether `name` is a compiled zone (a TZif file) under `$TZDIR`, else
    /// /usr/share/zoneinfo. Names that climb out of the folder are not.
    package static func compiledZoneExists(_ name: String) -> Bool {
        ZoneRules(named: name) != nil
    }

    /// Parses `text`. With `checkingZone` (the default), a zone name (not
    /// `UTC`) must name a compiled zone; without, any name of the right
    /// form passes (a saved spec whose zone has since gone).
    ///
    /// - Throws: `CalendarSpecError` naming the column of the first fault.
    package init(parsing text: String, checkingZone: Bool = true) throws(CalendarSpecError) {
        var words: [(text: String, column: Int)] = []
        var column = 1
        var current = ""
        var start = 1
        for scalar in text.unicodeScalars {  // columns count scalars: see `Text.swift`
            if scalar == " " || scalar == "\t" {
                if !current.isEmpty { words.append((current, start)) }
                current = ""
                start = column + 1
            } else {
                if current.isEmpty { start = column }
                current.unicodeScalars.append(scalar)
            }
            column += 1
        }
        if !current.isEmpty { words.append((current, start)) }
        guard !words.isEmpty else { throw CalendarSpecError("the spec is empty", column: 1) }

        if words.count == 1 || (words.count == 2 && Self.isZoneWord(words[1].text)),
           case let name = Self.asciiLowercased(words[0].text),
           let expansion = Self.shorthands.first(where: { $0.name.isSame(as: name) })?.spec {
            try self.init(parsing: expansion + (words.count == 2 ? " " + words[1].text : ""), checkingZone: checkingZone)
            return
        }
        self.init()
        var index = 0
        let first = words[0]
        if let head = Self.split(first.text, on: ",").first.flatMap({ Self.split($0, on: "..").first }), Self.weekday(head) != nil {
            weekdays = try Self.weekdays(first.text, column: first.column)
            index = 1
        }
        var sawDate = false
        var sawTime = false
        while index < words.count {
            let word = words[index]
            if !sawDate && !sawTime && (word.text.hasByte("-") || word.text.hasByte("~")) && !word.text.hasByte(":") {
                try parseDate(word.text, column: word.column)
                sawDate = true
            } else if !sawTime && word.text.hasByte(":") {
                try parseTime(word.text, column: word.column)
                sawTime = true
            } else if index == words.count - 1 && (sawDate || sawTime || index > 0) && Self.isZoneWord(word.text) {
                if !word.text.isSame(as: "UTC") && checkingZone && !Self.compiledZoneExists(word.text) {
                    throw CalendarSpecError("unknown time zone '\(CalendarSpecError.clipped(word.text))'", column: word.column)
                }
                zone = word.text
            } else {
                throw CalendarSpecError("'\(CalendarSpecError.clipped(word.text))' is not a weekday, a date (Y-M-D), a time (h:m:s) or a time zone",
                                        column: word.column)
            }
            index += 1
        }
    }

    /// A word that may be a zone: `UTC`, or a name of letters, digits and
    /// `/_+-` that starts with a capital letter.
    static func isZoneWord(_ word: String) -> Bool {
        guard let first = word.unicodeScalars.first, ("A"..."Z").contains(first) else { return false }
        return word.unicodeScalars.allSatisfy {
            ("A"..."Z").contains($0) || ("a"..."z").contains($0) || ("0"..."9").contains($0) || "/_+-".unicodeScalars.contains($0)
        }
    }

    /// `Mon`, `Mon..Fri`, `Sat,Sun`, full names, any case.
    static func weekdays(_ text: String, column: Int) throws(CalendarSpecError) -> UInt8 {
        var mask: UInt8 = 0
        var offset = 0
        for part in split(text, on: ",") {
            let bounds = split(part, on: "..")
            guard bounds.count <= 2 else {
                throw CalendarSpecError("'\(CalendarSpecError.clipped(part))' is not a weekday or a range of them (Mon..Fri)", column: column + offset)
            }
            var days: [Int] = []
            var boundOffset = offset
            for bound in bounds {
                guard let day = weekday(bound) else {
                    throw CalendarSpecError("'\(CalendarSpecError.clipped(bound))' is not a weekday (Mon, Tue, … or Monday, …)", column: column + boundOffset)
                }
                days.append(day)
                boundOffset += bound.unicodeScalars.count + 2
            }
            if days.count == 2 {
                guard days[0] <= days[1] else {  // as systemd: the week runs Mon..Sun
                    throw CalendarSpecError("the weekday range \(CalendarSpecError.clipped(part)) runs backwards: the week is Mon..Sun", column: column + offset)
                }
                for day in days[0]...days[1] { mask |= 1 << day }
            } else {
                mask |= 1 << days[0]
            }
            offset += part.unicodeScalars.count + 1
        }
        return mask
    }

    /// 0 for Monday … 6 for Sunday: a three-letter abbreviation or the
    /// full name, any case.
    static func weekday(_ word: String) -> Int? {
        let lower = asciiLowercased(word)
        return weekdayNames.firstIndex { $0.isSame(as: lower) || (lower.utf8.count == 3 && $0.utf8.starts(with: lower.utf8)) }
    }

    private mutating func parseDate(_ text: String, column: Int) throws(CalendarSpecError) {
        let fromEnd = text.hasByte("~")
        var parts: [(String, Int)] = []
        var current = ""
        var start = column
        var position = column
        for scalar in text.unicodeScalars {
            if scalar == "-" || scalar == "~" {
                parts.append((current, start))
                current = ""
                start = position + 1
            } else {
                current.unicodeScalars.append(scalar)
            }
            position += 1
        }
        parts.append((current, start))
        guard parts.count == 2 || parts.count == 3, !(fromEnd && !text.utf8.reversed().starts(with: ("~" + parts[parts.count - 1].0).utf8.reversed())) else {
            throw CalendarSpecError("'\(CalendarSpecError.clipped(text))' is not a date: Y-M-D, M-D, or ~ before the day to count from the month's end",
                                    column: column)
        }
        if parts.count == 3 { years = try Self.field(parts[0].0, "year", 1970...2199, column: parts[0].1) }
        months = try Self.field(parts[parts.count - 2].0, "month", 1...12, column: parts[parts.count - 2].1)
        days = try Self.field(parts[parts.count - 1].0, "day", 1...31, column: parts[parts.count - 1].1)
        fromMonthEnd = fromEnd
    }

    private mutating func parseTime(_ text: String, column: Int) throws(CalendarSpecError) {
        let parts = Self.split(text, on: ":")
        guard parts.count == 2 || parts.count == 3 else {
            throw CalendarSpecError("'\(CalendarSpecError.clipped(text))' is not a time: h:m or h:m:s", column: column)
        }
        var offset = 0
        let columns = parts.map { part -> Int in
            defer { offset += part.unicodeScalars.count + 1 }
            return column + offset
        }
        if parts.count == 3, parts[2].hasByte(".") {
            throw CalendarSpecError("whole seconds only: '\(CalendarSpecError.clipped(parts[2]))'", column: columns[2])
        }
        hours = try Self.field(parts[0], "hour", 0...23, column: columns[0])
        minutes = try Self.field(parts[1], "minute", 0...59, column: columns[1])
        seconds = parts.count == 3 ? try Self.field(parts[2], "second", 0...59, column: columns[2]) : [Element(start: 0)]
        times = TimeValues(self)
    }
}
