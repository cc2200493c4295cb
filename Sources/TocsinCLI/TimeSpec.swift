import Glibc
import TocsinBase

/// A time as a person types it: a duration ("90", "90s", "25m", "1h30m",
/// "1h 30m", "2.5m", "1.5h", "0:00:30", "1:30:00", "0:45", "25:00") or a
/// clock time to count down to ("17:30", "2:30pm", "7am", or any clock
/// time after `until`: the next such time of day, tomorrow if already past).
///
/// Words with colons follow one rule, read where a countdown's time goes:
/// - three fields are hours, minutes and seconds (`0:00:30` is 30 s,
///   `1:30:00` an hour and a half), as on a stopwatch or termdown;
/// - two fields are minutes and seconds when they cannot be a time of day
///   (`0:45`, `00:30`, `25:00`), and a time of day when they cannot be a
///   length a person would write that way (`13:00` to `23:59`);
/// - the rest (`1:00` to `12:59`) could be either, and is refused with both
///   readings (`ambiguity(of:)`): `5m` or `0:05:00` for the duration,
///   `until 5:00` or `5am` for the clock time;
/// - am/pm always makes a clock time (`2:30pm`, `2:30:15pm`), and so does
///   `until` (`until 5:00`, `until 14:30:15`).
public enum TimeSpec: Equatable, Sendable {
    case duration(nanoseconds: Int64)
    case clock(hour: Int, minute: Int, second: Int)

    /// The forms accepted, for error messages and --help; in the user's language.
    public static var acceptedForms: String {
        tr("seconds (90), units (90s, 25m, 1h30m, \"1h 30m\", 2.5m), H:MM:SS (0:00:30, 1:30:00) or a clock time (until 14:30, 2:30pm)")
    }

    /// Parses one word where a countdown's time goes; nil if it is not a
    /// time, or could be a duration and a clock time alike (`ambiguity(of:)`
    /// says so).
    public static func parse(_ text: String) -> TimeSpec? {
        let word = normalized(text)
        guard !word.isEmpty else { return nil }
        if let colons = colonFields(word) { return colons.reading }
        return parseClock(word) ?? parseDuration(word)
    }

    /// Parses a clock time (after `until`): "14:30", "14:30:15", "5:00",
    /// "2:30pm", "7am"; nil if it is not one.
    public static func parseClockTime(_ text: String) -> TimeSpec? {
        parseClock(normalized(text))
    }

    /// Why a word is no time where both a duration and a clock time fit
    /// ("5:00"), with both readings and how to write each; nil otherwise.
    public static func ambiguity(of text: String) -> String? {
        guard let colons = colonFields(normalized(text)), colons.reading == nil,
              case .duration(let nanoseconds)? = colons.asDuration, case .clock(let hour, let minute, _)? = colons.asClock
        else { return nil }
        let minutes = nanoseconds / (60 * Nanos.perSecond), seconds = nanoseconds / Nanos.perSecond % 60
        let length = seconds == 0 ? tr("{n} min", ["n": String(minutes)])
            : tr("{minutes} min {seconds} s", ["minutes": String(minutes), "seconds": String(seconds)])
        let unit = seconds == 0 ? "\(minutes)m" : "\(minutes)m\(seconds)s"
        func twoDigits(_ value: some BinaryInteger) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return tr("'{text}' could be {length} or the clock time {clock}: write {unit} (or {colons}) for the length, until {text} for the time of day",
                  ["text": text, "length": length, "clock": "\(twoDigits(hour)):\(twoDigits(minute))", "unit": unit,
                   "colons": "0:\(twoDigits(minutes)):\(twoDigits(seconds))"])
    }

    /// Why a word of two or three numbers between colons ("5:60",
    /// "1:30:99", "0:5") is no time, naming the field at fault; nil for
    /// any other word. Such a word is meant as a time, never as a time and
    /// a label ("5:60" is not 5 s labelled 60).
    public static func fieldProblem(of text: String) -> String? {
        let parts = normalized(text).split(separator: ":", omittingEmptySubsequences: false)
        guard (2...3).contains(parts.count), parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy { $0.isASCII && $0.isNumber } }),
              parts[0].count <= 6
        else { return nil }
        let later = parts.dropFirst().map { Int($0) ?? 99 }
        if parts.count == 3 {
            if later[0] > 59 { return tr("{n} is not a number of minutes (0 to 59)", ["n": String(parts[1])]) }
            if later[1] > 59 { return tr("{n} is not a number of seconds (0 to 59)", ["n": String(parts[2])]) }
        } else if later[0] > 59 {
            return tr("{n} is not a number of minutes or seconds (0 to 59)", ["n": String(parts[1])])
        }
        // One digit after a colon ("0:5"): the two-digit form, and for M:SS
        // that could be a clock time ("12:5") the H:MM:SS one.
        guard parts.dropFirst().allSatisfy({ $0.count <= 2 }), let short = parts.dropFirst().first(where: { $0.count == 1 }) else {
            return nil
        }
        var fixed = parts.enumerated().map { $0.offset > 0 && $0.element.count == 1 ? "0" + $0.element : String($0.element) }
        if fixed.count == 2, let minutes = Int(fixed[0]), (1...12).contains(minutes) {
            fixed = ["0", minutes < 10 ? "0\(minutes)" : "\(minutes)", fixed[1]]
        }
        return tr("after a colon come two digits ({part} is {fixed}): write {word}",
                  ["part": String(short), "fixed": "0" + short, "word": fixed.joined(separator: ":")])
    }

    private static func normalized(_ text: String) -> String {
        text.lowercased().filter { $0 != " " }
    }

    /// A word of two or three colon-separated numbers without am/pm, read
    /// both ways; nil for any other word.
    private struct ColonFields {
        var asDuration: TimeSpec?
        var asClock: TimeSpec?
        /// The reading the rule above gives, nil where it is ambiguous or neither.
        var reading: TimeSpec?
        /// The seconds read as a duration, unchecked (0 for "0:00").
        var seconds = 0
    }

    private static func colonFields(_ word: String) -> ColonFields? {
        let parts = word.split(separator: ":", omittingEmptySubsequences: false)
        guard (2...3).contains(parts.count), parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
              parts.dropFirst().allSatisfy({ $0.count <= 2 }), parts.count == 3 || parts[1].count == 2, parts[0].count <= 6,
              let first = Int(parts[0]), let second = Int(parts[1]), let third = parts.count == 3 ? Int(parts[2]) : 0
        else { return nil }
        var fields = ColonFields()
        if parts.count == 3 {
            guard second < 60, third < 60 else { return nil }
            fields.seconds = first * 3600 + second * 60 + third
            fields.asDuration = nanoseconds(seconds: Double(fields.seconds)).map { .duration(nanoseconds: $0) }
            fields.reading = fields.asDuration
            return fields
        }
        guard second < 60 else { return nil }
        fields.seconds = first * 60 + second
        fields.asDuration = nanoseconds(seconds: Double(fields.seconds)).map { .duration(nanoseconds: $0) }
        if first < 24, parts[1].count == 2 { fields.asClock = .clock(hour: first, minute: second, second: 0) }
        switch first {
        case 0, 24...: fields.reading = fields.asDuration
        case 13...23: fields.reading = fields.asClock
        default: fields.reading = nil  // 1:00 ... 12:59: either
        }
        return fields
    }

    /// "90", "90s", "1h30m15s", "2.5m": each unit once, numbers may have decimals.
    static func parseDuration(_ word: String) -> TimeSpec? {
        seconds(word).flatMap(nanoseconds(seconds:)).map { .duration(nanoseconds: $0) }
    }

    /// Why a word written as a duration is no countdown's time ("0", "0s",
    /// "200000h"); nil if it is one, or is not written as a duration.
    public static func rangeProblem(_ text: String) -> String? {
        if let colons = colonFields(normalized(text)), colons.asDuration == nil, colons.asClock == nil || colons.seconds == 0 {
            return colons.seconds <= 0 ? tr("a countdown must be longer than 0") : tr("a countdown can be 100 years at most")
        }
        guard let seconds = seconds(text.lowercased().filter { $0 != " " }), nanoseconds(seconds: seconds) == nil else {
            return nil
        }
        return seconds <= 0 ? tr("a countdown must be longer than 0") : tr("a countdown can be 100 years at most")
    }

    /// The seconds a duration word says, unchecked; nil if it is not one.
    private static func seconds(_ word: String) -> Double? {
        if let seconds = Double(word), word.first != "+", word.first?.isNumber == true || word.first == "." {
            return seconds
        }
        var total = 0.0
        var number = ""
        var seen = Set<Character>()
        var index = word.startIndex
        while index < word.endIndex {
            let character = word[index]
            if character.isNumber || character == "." {
                number.append(character)
                index = word.index(after: index)
                continue
            }
            var unit = ""
            while index < word.endIndex, word[index].isLetter {
                unit.append(word[index])
                index = word.index(after: index)
            }
            guard let value = Double(number), let scale = unitScale(unit), let key = unit.first,
                  seen.insert(key).inserted
            else { return nil }
            total += value * scale
            number = ""
        }
        guard number.isEmpty, !seen.isEmpty else { return nil }
        return total
    }

    private static func unitScale(_ unit: String) -> Double? {
        switch unit {
        case "s", "sec", "secs", "second", "seconds": 1
        case "m", "min", "mins", "minute", "minutes": 60
        case "h", "hr", "hrs", "hour", "hours": 3600
        default: nil
        }
    }

    /// More than zero, at most 100 years.
    private static func nanoseconds(seconds: Double) -> Int64? {
        guard seconds > 0 else { return nil }
        return Nanos.from(seconds: seconds)  // nil above 100 years, or for NaN and infinity
    }

    /// "14:30", "14:30:15", "2:30pm", "7am", "12am" (midnight).
    static func parseClock(_ word: String) -> TimeSpec? {
        var rest = Substring(word)
        var meridiem: String?
        for suffix in ["am", "pm"] where rest.hasSuffix(suffix) {
            meridiem = suffix
            rest = rest.dropLast(2)
        }
        let parts = rest.split(separator: ":", omittingEmptySubsequences: false)
        guard (1...3).contains(parts.count), meridiem != nil || parts.count >= 2,
              parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isNumber) }),
              parts.dropFirst().allSatisfy({ $0.count == 2 }),
              let hour = Int(parts[0]), parts[0].count <= 2
        else { return nil }
        let minute = parts.count > 1 ? Int(parts[1])! : 0
        let second = parts.count > 2 ? Int(parts[2])! : 0
        guard minute < 60, second < 60 else { return nil }
        switch meridiem {
        case nil:
            guard hour < 24 else { return nil }
            return .clock(hour: hour, minute: minute, second: second)
        case let suffix?:
            guard (1...12).contains(hour) else { return nil }
            return .clock(hour: hour % 12 + (suffix == "pm" ? 12 : 0), minute: minute, second: second)
        }
    }

    /// Nanoseconds from now to this time: the duration itself, or the time
    /// until the clock time's next occurrence (`wallTime(after:)`).
    public func nanoseconds() -> Int64 {
        nanoseconds(fromEpochSeconds: time(nil))
    }

    /// As `nanoseconds()`, from a given wall-clock time (for tests).
    public func nanoseconds(fromEpochSeconds now: Int) -> Int64 {
        switch self {
        case .duration(let nanoseconds): nanoseconds
        case .clock: Int64(wallTime(after: now)! - now) * Nanos.perSecond
        }
    }

    /// A clock time's next occurrence after `now` (both Unix seconds), in
    /// the local time zone (`TZ`); nil for a duration. Daylight saving time:
    /// - a local time that occurs twice (clocks set back, e.g. 02:30 on
    ///   2026-10-25 in Berlin) is its first occurrence still ahead: the
    ///   earlier one, or the later one if the earlier has passed;
    /// - a local time that does not occur (clocks set forward, e.g. 02:30
    ///   on 2026-03-29 in Berlin) is the moment the clocks skip it (03:00
    ///   local time there): the first moment the clock reads later.
    public func wallTime(after now: Int) -> Int? {
        guard case .clock(let hour, let minute, let second) = self else { return nil }
        var current = time_t(now)
        var today = tm()
        localtime_r(&current, &today)
        for dayOffset in 0...2 {
            var wanted = today
            wanted.tm_mday += Int32(dayOffset)
            (wanted.tm_hour, wanted.tm_min, wanted.tm_sec) = (Int32(hour), Int32(minute), Int32(second))
            if let time = Self.firstMoment(reading: wanted, after: now) { return time }
        }
        return nil  // unreachable: a clock time occurs (or is skipped) every day
    }

    /// The first moment after `now` at which the local clock reads `wanted`
    /// (a date and time of day; fields may be out of range, as for `timegm`),
    /// or, if the clocks skip that reading, the moment they skip it.
    private static func firstMoment(reading wanted: tm, after now: Int) -> Int? {
        var fields = wanted
        let reading = Int(timegm(&fields))  // the wanted local reading as a number
        // The zone's offsets from UTC around that day: a reading at offset o
        // happens at reading - o.
        var offsets = Set<Int>()
        for hours in stride(from: -48, through: 48, by: 6) {
            var probe = time_t(reading + hours * 3600)
            var local = tm()
            localtime_r(&probe, &local)
            offsets.insert(local.tm_gmtoff)
        }
        let moments = offsets.map { reading - $0 }.filter { localReading(at: $0) == reading }.sorted()
        if !moments.isEmpty { return moments.first { $0 > now } }
        // Skipped: the first moment whose reading is later (binary search
        // between the two offsets' moments, where the clocks jump).
        guard var low = offsets.map({ reading - $0 }).min(), var high = offsets.map({ reading - $0 }).max() else {
            return nil
        }
        while high - low > 1 {
            let middle = low + (high - low) / 2
            if localReading(at: middle) > reading { high = middle } else { low = middle }
        }
        return high > now ? high : nil
    }

    /// The local clock's reading at Unix time `time`, as a number comparable
    /// with `timegm` of a reading.
    private static func localReading(at time: Int) -> Int {
        var moment = time_t(time)
        var local = tm()
        localtime_r(&moment, &local)
        return Int(timegm(&local))
    }
}
