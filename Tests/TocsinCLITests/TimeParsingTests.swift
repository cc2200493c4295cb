import Glibc
import Testing
import TocsinCLI

@Suite struct TimeParsingTests {
    static let second: Int64 = 1_000_000_000

    @Test(arguments: [
        ("90", 90.0), ("90s", 90), ("25m", 1500), ("1h30m", 5400), ("1h 30m", 5400), ("2.5m", 150),
        ("1.5h", 5400), ("1h30m15s", 5415), ("0.5", 0.5), ("45sec", 45), ("3min", 180), ("2hours", 7200),
        ("1H", 3600), (" 10s ", 10),
    ])
    func acceptedDurations(text: String, seconds: Double) {
        #expect(TimeSpec.parse(text) == .duration(nanoseconds: Int64(seconds * 1e9)))
    }

    @Test(arguments: [
        "", "abc", "0", "0s", "-5", "-5m", "5x", "1h1h", "m", "1.2.3m", "5m30", "nan", "inf", "1e999",
        "25:99", "24:00", "13pm", "0am", "1:5", ":30", "14:", "1:2:3:4", "+5",
    ])
    func rejectedWords(text: String) {
        #expect(TimeSpec.parse(text) == nil)
    }

    @Test(arguments: [
        ("14:30", 14, 30, 0), ("2:30pm", 14, 30, 0), ("2:30 PM", 14, 30, 0), ("7am", 7, 0, 0),
        ("12am", 0, 0, 0), ("12pm", 12, 0, 0), ("00:05", 0, 5, 0), ("23:59:59", 23, 59, 59),
    ])
    func clockTimes(text: String, hour: Int, minute: Int, second: Int) {
        #expect(TimeSpec.parse(text) == .clock(hour: hour, minute: minute, second: second))
    }

    @Test func clockTimesCountToTheNextOccurrenceTomorrowIfPast() {
        setenv("TZ", "UTC", 1)
        tzset()
        let noon = 1_700_000_000 - 1_700_000_000 % 86_400 + 12 * 3600  // some day at 12:00:00 UTC
        #expect(TimeSpec.clock(hour: 14, minute: 30, second: 0).nanoseconds(fromEpochSeconds: noon) == 9000 * Self.second)
        #expect(TimeSpec.clock(hour: 11, minute: 0, second: 0).nanoseconds(fromEpochSeconds: noon) == 23 * 3600 * Self.second)
        #expect(TimeSpec.clock(hour: 12, minute: 0, second: 0).nanoseconds(fromEpochSeconds: noon) == 86_400 * Self.second)
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
        [], ["Tea"], ["25x"], ["25m", "5x"], ["until"], ["until", "25m"], ["until", "noon"], ["0s"], ["-5m"],
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
}
