import Glibc
import Testing
import TocsinCLI

@Suite struct TimeParsingTests {
    static let second: Int64 = 1_000_000_000

    @Test(arguments: [
        ("90", 90.0), ("90s", 90), ("25m", 1500), ("1h30m", 5400), ("1h 30m", 5400), ("2.5m", 150),
        ("1.5h", 5400), ("1h30m15s", 5415), ("0.5", 0.5), ("45sec", 45), ("3min", 180), ("2hours", 7200),
        ("1H", 3600), (" 10s ", 10),
        // Colons: H:MM:SS always; M:SS where it cannot be a time of day.
        ("00:00:30", 30), ("0:00:30", 30), ("1:30:00", 5400), ("1:2:3", 3723), ("23:59:59", 86399), ("100:00:00", 360_000),
        ("0:45", 45), ("00:30", 30), ("00:05", 5), ("25:00", 1500), ("90:30", 5430),
    ])
    func acceptedDurations(text: String, seconds: Double) {
        #expect(TimeSpec.parse(text) == .duration(nanoseconds: Int64(seconds * 1e9)))
    }

    @Test(arguments: [
        "", "abc", "0", "0s", "-5", "-5m", "5x", "1h1h", "m", "1.2.3m", "5m30", "nan", "inf", "1e999",
        "25:99", "13pm", "0am", "1:5", ":30", "14:", "1:2:3:4", "+5", "0:00", "0:00:00", "1:60:00", "1:00:60",
        "5:00", "12:59", "1:00", "1:005", "١:٣٠",
    ])
    func rejectedWords(text: String) {
        #expect(TimeSpec.parse(text) == nil)
    }

    @Test(arguments: [
        ("14:30", 14, 30, 0), ("13:00", 13, 0, 0), ("23:59", 23, 59, 0), ("2:30pm", 14, 30, 0), ("2:30 PM", 14, 30, 0),
        ("7am", 7, 0, 0), ("12am", 0, 0, 0), ("12pm", 12, 0, 0), ("2:30:15pm", 14, 30, 15),
    ])
    func clockTimes(text: String, hour: Int, minute: Int, second: Int) {
        #expect(TimeSpec.parse(text) == .clock(hour: hour, minute: minute, second: second))
        #expect(TimeSpec.parseClockTime(text) == .clock(hour: hour, minute: minute, second: second))
    }

    /// After `until` every form is a clock time, the ambiguous ones too.
    @Test(arguments: [
        ("5:00", 5, 0, 0), ("00:05", 0, 5, 0), ("0:30", 0, 30, 0), ("12:59", 12, 59, 0), ("14:30:15", 14, 30, 15),
        ("23:59:59", 23, 59, 59),
    ])
    func clockTimesAfterUntil(text: String, hour: Int, minute: Int, second: Int) throws {
        #expect(TimeSpec.parseClockTime(text) == .clock(hour: hour, minute: minute, second: second))
        let plan = try TimerPlan(words: ["until", text, "Up"])
        #expect(plan.entries == [.init(time: .clock(hour: hour, minute: minute, second: second), label: "Up")])
    }

    @Test func wordsThatCouldBeEitherAreRefusedWithBothReadings() {
        #expect(TimeSpec.ambiguity(of: "5:00") ==
            "'5:00' could be 5 min or the clock time 05:00: write 5m (or 0:05:00) for the length, until 5:00 for the time of day")
        #expect(TimeSpec.ambiguity(of: "12:30")?.hasPrefix("'12:30' could be 12 min 30 s or the clock time 12:30: write 12m30s (or 0:12:30)") == true)
        for word in ["0:30", "14:30", "1:30:00", "25m", "abc"] { #expect(TimeSpec.ambiguity(of: word) == nil) }
        for words in [["5:00"], ["5:00", "Eggs"], ["5:00:Eggs"], ["25m:Work", "7:30:Break"]] {
            #expect { try TimerPlan(words: words) } throws: {
                ($0 as? TimerPlan.Failure)?.description.contains("could be") == true
            }
        }
    }

    /// A typo in M:SS or H:MM:SS is named (issue 58: `5:60` ran 5 s
    /// labelled 60, `0:5` said a countdown must be longer than 0).
    @Test(arguments: [
        ("5:60", "5:60: 60 is not a number of minutes or seconds (0 to 59)"),
        ("12:75", "12:75: 75 is not a number of minutes or seconds (0 to 59)"),
        ("1:61", "1:61: 61 is not a number of minutes or seconds (0 to 59)"),
        ("0:99", "0:99: 99 is not a number of minutes or seconds (0 to 59)"),
        ("1:30:99", "1:30:99: 99 is not a number of seconds (0 to 59)"),
        ("1:75:00", "1:75:00: 75 is not a number of minutes (0 to 59)"),
        ("0:5", "0:5: after a colon come two digits (5 is 05): write 0:05"),
        ("12:5", "12:5: after a colon come two digits (5 is 05): write 0:12:05"),  // (12:05 could be a clock time)
        ("5:60:Tea", "5:60: 60 is not a number of minutes or seconds (0 to 59)"),  // with a label too
        ("0:5:Tea", "0:5: after a colon come two digits (5 is 05): write 0:05"),
    ])
    func aTypoInAColonTimeNamesItsField(word: String, message: String) {
        #expect { try TimerPlan(words: [word, "Tea"]) } throws: {
            ($0 as? TimerPlan.Failure)?.description == message
        }
        #expect(TimeSpec.fieldProblem(of: "5:59") == nil && TimeSpec.fieldProblem(of: "25m:60") == nil)
    }

    @Test func colonDurationsTakeLabels() throws {
        let tea = try TimerPlan(words: ["0:00:30", "Tea"])
        #expect(tea.entries == [.init(time: .duration(nanoseconds: 30 * Self.second), label: "Tea")])
        let labelled = try TimerPlan(words: ["1:30:00:Work", "0:45:Break"])
        #expect(labelled.entries == [.init(time: .duration(nanoseconds: 5400 * Self.second), label: "Work"),
                                     .init(time: .duration(nanoseconds: 45 * Self.second), label: "Break")])
        #expect { try TimerPlan(words: ["0:00:00"]) } throws: {
            ($0 as? TimerPlan.Failure)?.description == "0:00:00: a countdown must be longer than 0"
        }
    }

    @Test func plansFromWords() throws {
        let tea = try TimerPlan(words: ["25m", "Tea is ready"])
        #expect(tea.entries == [.init(time: .duration(nanoseconds: 1500 * Self.second), label: "Tea is ready")])
        let words = try TimerPlan(words: ["3m", "Tea", "is", "ready"])
        #expect(words.entries.map(\.label) == ["Tea is ready"])
        let summed = try TimerPlan(words: ["1h", "30m"])
        #expect(summed.entries == [.init(time: .duration(nanoseconds: 5400 * Self.second), label: "Timer")])
        let pomodoro = try TimerPlan(words: ["25m:Work", "5m:Break"])
        #expect(pomodoro.entries.map(\.label) == ["Work", "Break"])
        #expect(pomodoro.entries.map(\.time) == [.duration(nanoseconds: 1500 * Self.second), .duration(nanoseconds: 300 * Self.second)])
        let until = try TimerPlan(words: ["until", "14:30", "Meeting"])
        #expect(until.entries == [.init(time: .clock(hour: 14, minute: 30, second: 0), label: "Meeting")])
        let clockLabel = try TimerPlan(words: ["14:30:Standup"])
        #expect(clockLabel.entries == [.init(time: .clock(hour: 14, minute: 30, second: 0), label: "Standup")])
        let labelledSum = try TimerPlan(words: ["1h", "30m:Work"])
        #expect(labelledSum.entries == [.init(time: .duration(nanoseconds: 5400 * Self.second), label: "Work")])
        let mixed = try TimerPlan(words: ["1m:Stretch", "10s", "Rest"])
        #expect(mixed.entries.map(\.label) == ["Stretch", "Rest"])
    }

    @Test(arguments: [
        [], ["Tea"], ["25x"], ["25m", "5x"], ["until"], ["until", "25m"], ["until", "noon"], ["-5m"],
        ["25m:Work", "Tea"],
    ])
    func badCommandLinesNameTheAcceptedForms(words: [String]) {
        do {
            _ = try TimerPlan(words: words)
            Issue.record("accepted \(words)")
        } catch {
            #expect(error.description.contains("until 14:30"))
        }
    }

    @Test func timesOutOfRangeSayWhich() {
        for (word, expected) in [("0", "0: a countdown must be longer than 0"), ("0s", "0s: a countdown must be longer than 0"),
                                 ("0m:Tea", "0m:Tea: a countdown must be longer than 0"),
                                 ("900000h", "900000h: a countdown can be 100 years at most")] {
            #expect { try TimerPlan(words: [word]) } throws: { ($0 as? TimerPlan.Failure)?.description == expected }
        }
    }

    @Test func wordsBetweenTimesLabelTheTimeBeforeThem() throws {
        let two = try TimerPlan(words: ["10s", "Par1", "10s", "Par2"])
        #expect(two.entries == [.init(time: .duration(nanoseconds: 10 * Self.second), label: "Par1"),
                                .init(time: .duration(nanoseconds: 10 * Self.second), label: "Par2")])
        let sentence = try TimerPlan(words: ["3m", "Soft", "eggs", "5m", "Hard", "eggs"])
        #expect(sentence.entries.map(\.label) == ["Soft eggs", "Hard eggs"])
        let leading = try TimerPlan(words: ["Tea", "5m", "2m"])  // a label first: the timers without one
        #expect(leading.entries == [.init(time: .duration(nanoseconds: 420 * Self.second), label: "Tea")])
    }
}

/// Clock times in a time zone (`TZ` is the process's: one suite, one test
/// at a time), across daylight saving time changes in Berlin (CET, UTC+1;
/// CEST, UTC+2): on 2026-03-29 the clocks go from 02:00 to 03:00, on
/// 2026-10-25 from 03:00 back to 02:00.
@Suite(.serialized) struct ClockTimeTests {
    static let second: Int64 = 1_000_000_000

    /// Unix time of a UTC date and time.
    static func utc(_ year: Int32, _ month: Int32, _ day: Int32, _ hour: Int32, _ minute: Int32 = 0) -> Int {
        var fields = tm()
        (fields.tm_year, fields.tm_mon, fields.tm_mday, fields.tm_hour, fields.tm_min) = (year - 1900, month - 1, day, hour, minute)
        return Int(timegm(&fields))
    }

    func inZone(_ zone: String, _ body: () -> Void) {
        let previous = getenv("TZ").map { String(cString: $0) }
        setenv("TZ", zone, 1)
        tzset()
        body()
        if let previous { setenv("TZ", previous, 1) } else { unsetenv("TZ") }
        tzset()
    }

    func inBerlin(_ body: () -> Void) { inZone("Europe/Berlin", body) }

    @Test func clockTimesCountToTheNextOccurrenceTomorrowIfPast() {
        inZone("UTC") {
            let noon = 1_700_000_000 - 1_700_000_000 % 86_400 + 12 * 3600  // some day at 12:00:00 UTC
            #expect(TimeSpec.clock(hour: 14, minute: 30, second: 0).nanoseconds(fromEpochSeconds: noon) == 9000 * Self.second)
            #expect(TimeSpec.clock(hour: 11, minute: 0, second: 0).nanoseconds(fromEpochSeconds: noon) == 23 * 3600 * Self.second)
            #expect(TimeSpec.clock(hour: 12, minute: 0, second: 0).nanoseconds(fromEpochSeconds: noon) == 86_400 * Self.second)
        }
    }

    @Test func aSkippedTimeRingsWhenTheClocksSkipIt() {
        inBerlin {
            let evening = Self.utc(2026, 3, 28, 21)  // 22:00 CET the evening before
            let twoThirty = TimeSpec.clock(hour: 2, minute: 30, second: 0)
            #expect(twoThirty.wallTime(after: evening) == Self.utc(2026, 3, 29, 1))  // 03:00 CEST
            let twoAm = TimeSpec.clock(hour: 2, minute: 0, second: 0)
            #expect(twoAm.wallTime(after: evening) == Self.utc(2026, 3, 29, 1))
            // Times either side are what they say.
            #expect(TimeSpec.clock(hour: 1, minute: 59, second: 0).wallTime(after: evening) == Self.utc(2026, 3, 29, 0, 59))
            #expect(TimeSpec.clock(hour: 3, minute: 0, second: 0).wallTime(after: evening) == Self.utc(2026, 3, 29, 1))
            #expect(TimeSpec.clock(hour: 8, minute: 0, second: 0).wallTime(after: evening) == Self.utc(2026, 3, 29, 6))
            // After the jump, 02:30 is the next day's (which exists).
            #expect(twoThirty.wallTime(after: Self.utc(2026, 3, 29, 1, 30)) == Self.utc(2026, 3, 30, 0, 30))
        }
    }

    @Test func aTimeThatOccursTwiceIsItsFirstOccurrenceStillAhead() {
        inBerlin {
            let twoThirty = TimeSpec.clock(hour: 2, minute: 30, second: 0)
            let evening = Self.utc(2026, 10, 24, 20)  // 22:00 CEST
            #expect(twoThirty.wallTime(after: evening) == Self.utc(2026, 10, 25, 0, 30))  // 02:30 CEST
            // Between the two: 02:45 CEST has passed the first; the second is ahead.
            #expect(twoThirty.wallTime(after: Self.utc(2026, 10, 25, 0, 45)) == Self.utc(2026, 10, 25, 1, 30))  // 02:30 CET
            // After both: tomorrow's.
            #expect(twoThirty.wallTime(after: Self.utc(2026, 10, 25, 1, 45)) == Self.utc(2026, 10, 26, 1, 30))
            #expect(TimeSpec.clock(hour: 12, minute: 0, second: 0).wallTime(after: evening) == Self.utc(2026, 10, 25, 11))
            // The day is 25 hours long: 22:00 to 22:00 is 25 h.
            #expect(TimeSpec.clock(hour: 22, minute: 0, second: 0).nanoseconds(fromEpochSeconds: evening)
                == 25 * 3600 * 1_000_000_000)
        }
    }
}
