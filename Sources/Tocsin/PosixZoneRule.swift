/// A POSIX TZ rule, as in a TZif file's footer: `CET-1CEST,M3.5.0,M10.5.0/3`,
/// `<+1030>-10:30<+11>-11,M10.1.0,M4.1.0`, `<-03>3`. Offsets here are
/// seconds east of UTC (POSIX writes them west).
struct PosixZoneRule: Sendable, Equatable {
    /// A day of the year the change happens on.
    enum Day: Sendable, Equatable {
        /// `Mm.w.d`: weekday `d` (0 Sunday) of week `w` (5: the last) of month `m`.
        case monthWeekDay(month: Int, week: Int, weekday: Int)
        /// `Jn`: day n of 1...365, February 29 never counted.
        case julian(Int)
        /// `n`: day n of 0...365, February 29 counted.
        case zeroBased(Int)
    }

    struct Change: Sendable, Equatable {
        var day: Day
        /// Local seconds after midnight (may be negative or past 24 h).
        var time: Int32 = 7200
    }

    var standardOffset: Int32
    var daylightOffset: Int32?
    var start: Change?
    var end: Change?

    init(standardOffset: Int32) {
        self.standardOffset = standardOffset
    }

    /// Parses a rule; nil if it is not one.
    init?(_ text: String) {
        var scanner = Scanner(Array(text.utf8))
        guard scanner.name(), let standard = scanner.offset() else { return nil }
        standardOffset = -standard
        if scanner.atEnd { return }
        guard scanner.name() else { return nil }
        if let daylight = scanner.offset() {
            daylightOffset = -daylight
        } else {
            daylightOffset = standardOffset + 3600
        }
        // Without change dates POSIX leaves them to the implementation; the US rules then.
        guard scanner.take(UInt8(ascii: ",")) else {
            guard scanner.atEnd else { return nil }
            start = Change(day: .monthWeekDay(month: 3, week: 2, weekday: 0))
            end = Change(day: .monthWeekDay(month: 11, week: 1, weekday: 0))
            return
        }
        guard let start = scanner.change(), scanner.take(UInt8(ascii: ",")), let end = scanner.change(), scanner.atEnd else {
            return nil
        }
        (self.start, self.end) = (start, end)
    }

    /// Seconds east of UTC at `utc`.
    func offset(at utc: Int64) -> Int32 {
        guard let daylightOffset, let start, let end else { return standardOffset }
        // The year by standard time: the changes are written in local time.
        let year = CalendarSpec.civil(fromDays: CalendarSpec.floorDivide(utc + Int64(standardOffset), 86400)).year
        let begins = Self.instant(start, year: year) - Int64(standardOffset)
        let ends = Self.instant(end, year: year) - Int64(daylightOffset)
        let daylight = begins < ends
            ? utc >= begins && utc < ends  // northern: daylight inside the year
            : utc >= begins || utc < ends  // southern: daylight across New Year
        return daylight ? daylightOffset : standardOffset
    }

    /// The local wall time (seconds since 1970, as if UTC) of `change` in `year`.
    static func instant(_ change: Change, year: Int) -> Int64 {
        let day: Int64
        switch change.day {
        case .monthWeekDay(let month, let week, let weekday):
            let first = CalendarSpec.days(year: year, month: month, day: 1)
            let firstWeekday = Int(CalendarSpec.floorModulo(first + 4, 7))  // 1970-01-01 was a Thursday (4, from Sunday 0)
            var dayOfMonth = 1 + (weekday - firstWeekday + 7) % 7 + (week - 1) * 7
            let length = CalendarSpec.daysIn(month: month, year: year)
            while dayOfMonth > length { dayOfMonth -= 7 }
            day = first + Int64(dayOfMonth - 1)
        case .julian(let n):
            let leap = CalendarSpec.daysIn(month: 2, year: year) == 29
            day = CalendarSpec.days(year: year, month: 1, day: 1) + Int64(n - 1 + (leap && n >= 60 ? 1 : 0))
        case .zeroBased(let n):
            day = CalendarSpec.days(year: year, month: 1, day: 1) + Int64(n)
        }
        return day * 86400 + Int64(change.time)
    }
}

/// Reads a POSIX TZ rule's parts.
private struct Scanner {
    let bytes: [UInt8]
    var index = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    var atEnd: Bool { index == bytes.count }

    mutating func take(_ byte: UInt8) -> Bool {
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    /// `<...>` or three or more letters.
    mutating func name() -> Bool {
        if take(UInt8(ascii: "<")) {
            while index < bytes.count, bytes[index] != UInt8(ascii: ">") { index += 1 }
            return take(UInt8(ascii: ">"))
        }
        let start = index
        while index < bytes.count, (bytes[index] | 0x20) >= UInt8(ascii: "a"), (bytes[index] | 0x20) <= UInt8(ascii: "z") {
            index += 1
        }
        return index - start >= 3
    }

    mutating func number() -> Int? {
        let start = index
        var value = 0
        while index < bytes.count, bytes[index] >= 48, bytes[index] <= 57, index - start < 4 {
            value = value * 10 + Int(bytes[index] - 48)
            index += 1
        }
        return index > start ? value : nil
    }

    /// `[+-]h[:m[:s]]` as seconds (POSIX's sign: west positive).
    mutating func offset() -> Int32? {
        let negative = take(UInt8(ascii: "-"))
        if !negative { _ = take(UInt8(ascii: "+")) }
        guard let hours = number(), hours <= 167 else { return nil }
        var seconds = hours * 3600
        if take(UInt8(ascii: ":")) {
            guard let minutes = number(), minutes < 60 else { return nil }
            seconds += minutes * 60
            if take(UInt8(ascii: ":")) {
                guard let more = number(), more < 60 else { return nil }
                seconds += more
            }
        }
        return Int32(negative ? -seconds : seconds)
    }

    /// `Mm.w.d[/time]`, `Jn[/time]` or `n[/time]`.
    mutating func change() -> PosixZoneRule.Change? {
        var change: PosixZoneRule.Change
        if take(UInt8(ascii: "M")) {
            guard let month = number(), (1...12).contains(month), take(UInt8(ascii: ".")),
                  let week = number(), (1...5).contains(week), take(UInt8(ascii: ".")),
                  let weekday = number(), (0...6).contains(weekday) else { return nil }
            change = .init(day: .monthWeekDay(month: month, week: week, weekday: weekday))
        } else if take(UInt8(ascii: "J")) {
            guard let day = number(), (1...365).contains(day) else { return nil }
            change = .init(day: .julian(day))
        } else {
            guard let day = number(), (0...365).contains(day) else { return nil }
            change = .init(day: .zeroBased(day))
        }
        if take(UInt8(ascii: "/")) {
            guard let time = offset() else { return nil }
            change.time = time
        }
        return change
    }
}
