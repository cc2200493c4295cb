import Glibc
import Testing
@testable import Tocsin

/// The calendar-spec parser (groundwork of calendar alarms), with systemd's
/// own `systemd-analyze calendar` as the oracle for what it accepts and the
/// normalized form it prints.
@Suite struct CalendarSpecTests {
    /// systemd's normalized form of `spec`, or nil if systemd rejects it.
    static func systemd(_ spec: String) -> String? {
        let (output, status) = commandOutput("TZ=UTC systemd-analyze calendar \(shellQuoted(spec)) 2>/dev/null")
        guard status == 0 else { return nil }
        for line in output.split(separator: "\n") where line.contains("Normalized form: ") {
            return String(line.split(separator: ":", maxSplits: 1)[1].dropFirst())
        }
        return nil
    }

    /// systemd's next `count` occurrences of `spec` after `base` (Unix
    /// seconds), its wall times read in UTC.
    static func systemdOccurrences(_ spec: String, after base: Int64, count: Int) -> [Int64] {
        let command = "TZ=UTC systemd-analyze calendar --base-time=@\(base) --iterations=\(count) \(shellQuoted(spec)) 2>/dev/null"
        var times: [Int64] = []
        for line in commandOutput(command).text.split(separator: "\n") {
            guard line.contains("Next elapse: ") || line.contains("Iter. #") else { continue }
            // "    Next elapse: Mon 2027-03-29 07:00:00 UTC"
            let words = line.split(separator: " ")
            guard let date = words.first(where: { $0.count == 10 && $0.contains("-") }),
                  let time = words.first(where: { $0.count == 8 && $0.contains(":") }) else { continue }
            let d = date.split(separator: "-").compactMap { Int($0) }, t = time.split(separator: ":").compactMap { Int($0) }
            var parts = tm()
            (parts.tm_year, parts.tm_mon, parts.tm_mday) = (Int32(d[0] - 1900), Int32(d[1] - 1), Int32(d[2]))
            (parts.tm_hour, parts.tm_min, parts.tm_sec) = (Int32(t[0]), Int32(t[1]), Int32(t[2]))
            times.append(Int64(timegm(&parts)))
        }
        return times
    }

    static func parse(_ spec: String) throws(CalendarSpecError) -> CalendarSpec {
        try CalendarSpec(parsing: spec)
    }

    static let accepted = [
        "Mon..Fri 07:00", "Mon..Fri 09:25", "mon,TUE..wed *-*-* 1,2:3", "Sat,Sun 10:30", "Monday 08:00", "sunday",
        "Mon,Wed,Fri 18:00", "Tue..Thu 12:00", "Mon,Tue 07:00", "*-*-01 09:00", "*-12-25 08:00",
        "*:0/15", "9..17:00", "*-*~01", "*-*~03 12:00", "*-02~01", "2027-03-28 02:30", "2027-*-* 00:00",
        "*-*-* *:*:30", "*-*-* 08:30:15", "12:00", "00:00:00", "*-1,7-1", "*-01..03-15 10:00", "*-*-1/7 06:00",
        "*-*-* 0/2:00", "*-*-* 08..18/2:30", "*-*-* 08:00/20", "3,1,2:00", "1,1,2:00",
        "minutely", "hourly", "daily", "weekly", "monthly", "yearly", "annually", "quarterly", "semiannually",
        "*-12-25 08:00 UTC", "Sat,Sun 10:30 Europe/Berlin", "Mon..Fri 07:00 America/New_York", "daily UTC",
        "*-*-* 02:30 Australia/Lord_Howe", "Wed 12:00 Asia/Tehran",
    ]

    @Test(arguments: accepted)
    func theNormalizedFormIsSystemds(spec: String) throws {
        let expected = Self.systemd(spec)
        #expect(expected != nil, "systemd rejects \(spec)")
        #expect(try Self.parse(spec).normalized == expected)
    }

    /// 2027-01-15, 2027-03-27 12:00 (a DST weekend in Europe, irrelevant in
    /// UTC), 2028-02-28 23:59:59 (a leap day next), 2027-12-31 23:59:30.
    static let bases: [Int64] = [1_800_000_000, 1_806_148_800, 1_835_481_599, 1_830_297_570]

    @Test(arguments: accepted.filter { !$0.contains("/") || $0.hasSuffix("UTC") || !$0.contains(" ") || $0.contains(":") }
                             .filter { spec in !spec.split(separator: " ").contains { $0.contains("/") && $0.first?.isUppercase == true } })
    func theOccurrencesInUTCAreSystemds(spec: String) throws {
        let parsed = try Self.parse(spec)
        for base in Self.bases {
            var expected = Self.systemdOccurrences(spec, after: base, count: 6)
            if let missed = Self.systemdMisses[spec + " after \(base)"] { expected = missed + expected.dropLast(missed.count) }
            var ours: [Int64] = []
            var after = base
            while ours.count < 6, let next = parsed.next(afterUTC: after) {
                ours.append(next)
                after = next
            }
            // A spec with fewer than 6 occurrences left: systemd lists those, then "never".
            #expect(ours == expected, "\(spec) after \(base)")
        }
    }

    /// Occurrences systemd 252 skips: with a repetition in the day field it
    /// misses January 1 when it crosses into a new year
    /// (systemd/systemd#40260, still open in 258).
    static let systemdMisses: [String: [Int64]] = [
        "*-*-1/7 06:00 after 1830297570": [1_830_319_200],  // 2028-01-01 06:00
    ]

    @Test func anOccurrenceIsStrictlyAfterAndNoneAfter2199() throws {
        let noon = try Self.parse("12:00")
        #expect(noon.next(afterUTC: 1_800_014_400) == 1_800_100_800)  // 2027-01-15 12:00 → the next day's
        #expect(try Self.parse("2020-01-01 00:00").next(afterUTC: 1_800_000_000) == nil)
        #expect(try Self.parse("2199-12-31 23:59:59").next(afterUTC: 1_800_000_000) == 7_258_118_399)
    }

    static let rejected: [(String, String, Int)] = [
        ("", "the spec is empty", 1),
        ("Mon..Fri 25:00", "hour 25 is out of range (0..23)", 10),
        ("*-13-01", "month 13 is out of range (1..12)", 3),
        ("*-*-32 08:00", "day 32 is out of range (1..31)", 5),
        ("Funday 08:00", "'Funday' is not a weekday, a date (Y-M-D), a time (h:m:s) or a time zone", 1),
        ("Sat,Fri..Mon 06:00", "the weekday range Fri..Mon runs backwards: the week is Mon..Sun", 5),
        ("Mon..Fry 08:00", "'Fry' is not a weekday (Mon, Tue, … or Monday, …)", 6),
        ("08:61", "minute 61 is out of range (0..59)", 4),
        ("08:00 Mars/Base", "unknown time zone 'Mars/Base'", 7),
        ("*-*-* 10..08:00", "the hour range 10..08 ends before it starts", 7),
        ("*:0/0", "'0' is not a repetition: a whole number above 0", 5),
        ("08:00:01.5", "whole seconds only: '01.5'", 7),
        ("8am", "'8am' is not a weekday, a date (Y-M-D), a time (h:m:s) or a time zone", 1),
    ]

    @Test func badSpecsSayWhatIsWrongAndWhere() {
        for (spec, message, column) in Self.rejected {
            #expect(throws: CalendarSpecError(message, column: column)) { try Self.parse(spec) }
        }
    }

    @Test func systemdRejectsThemToo() {
        for (spec, _, _) in Self.rejected where !spec.hasSuffix(".5") {  // (systemd takes fractions; whole seconds suffice here)
            #expect(Self.systemd(spec) == nil, "systemd accepts \(spec)")
        }
    }
}
