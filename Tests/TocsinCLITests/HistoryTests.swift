import Testing
import Tocsin
import TocsinCLI
import TocsinService

/// `tocsin log`: the history's lines read back, filtered, and shown as a
/// table, CSV and totals; `--since` dates on a UTC clock.
@Suite struct HistoryTests {
    /// 2026-11-29 14:30:00 UTC.
    let now: Int64 = 1_795_962_600

    @Test(arguments: [
        ("today", 1_795_910_400), ("Yesterday", 1_795_824_000), ("2026-11-01", 1_793_491_200),
        ("2026-11-29 08:15", 1_795_940_100), ("2026-11-29T08:15:30", 1_795_940_130), ("7d", 1_795_357_800),
        ("12h", 1_795_919_400), ("0d", 1_795_962_600),
    ] as [(String, Int64)])
    func sinceDates(text: String, expected: Int64) throws {
        #expect(try HistorySince.unixSeconds(text, now: now, clock: .utc) == expected)
    }

    @Test(arguments: ["", "last week", "2026-02-30", "2026-13-01", "2026-11-29 24:00", "26-11-29", "7w", "-3d", "2026-11-29 8"])
    func wrongDatesSayWhatItTakes(text: String) {
        #expect {
            try HistorySince.unixSeconds(text, now: now, clock: .utc)
        } throws: { error in
            guard let failure = error as? CommandFailure else { return false }
            return failure.status == 2 && failure.message.contains("--since takes today, yesterday")
        }
    }

    @Test func aRecordIsOneLineAndReadsBack() throws {
        let record = HistoryRecord(at: 1_795_962_600.25, event: .finish, id: 3, label: "Work \"deep\"", kind: "countdown",
                                   duration: 1500.125, started: 1_795_961_100.125, owner: "org.example.App")
        let text = record.json.compactEncoded()
        #expect(text == #"{"v":1,"at":1795962600.25,"event":"finish","id":3,"label":"Work \"deep\"","kind":"countdown","#
                + #""duration":1500.125,"started":1795961100.125,"owner":"org.example.App"}"#)
        let parsed = try #require(JSON.parse(Array(text.utf8), fractions: true))
        #expect(HistoryRecord(json: parsed) == record)
    }

    @Test func fractionsAreReadOnlyWhenAsked() {
        #expect(JSON.parse(Array("1.5".utf8)) == nil)
        #expect(JSON.parse(Array("[1.5, -0.25, 2e3, 1E-2, 7]".utf8), fractions: true)
                == .array([.number(1.5), .number(-0.25), .number(2000), .number(0.01), .integer(7)]))
        for bad in ["1.", ".5", "1e", "1.e3", "--1.0", "1.5.5"] {
            #expect(JSON.parse(Array(bad.utf8), fractions: true) == nil, "\(bad)")
        }
    }

    @Test func unreadableLinesAreSkippedAndCounted() {
        var reading = HistoryReading()
        let good = #"{"v":1,"at":10.5,"event":"cancel","id":1,"label":"Tea","kind":"countdown","duration":2.0,"extra":[1]}"#
        reading.add(Array((good + "\nnot json\n" + #"{"v":2,"at":1}"# + "\n\n" + #"{"v":1,"event":"finish"}"# + "\n" + good.prefix(30)).utf8))
        #expect(reading.lines.map(\.text) == [good])
        #expect(reading.skipped == 4)  // garbage, a newer version, a member missing, the torn last line
        #expect(reading.lines.first?.record.duration == 2.0)
    }

    @Test func csvQuotesWhatNeedsIt() {
        #expect(HistoryReport.csvField("Work") == "Work")
        #expect(HistoryReport.csvField("Tea, green") == "\"Tea, green\"")
        #expect(HistoryReport.csvField("say \"hi\"") == "\"say \"\"hi\"\"\"")
        #expect(HistoryReport.csvField("two\nlines") == "\"two\nlines\"")
        #expect(HistoryReport.csvField("") == "")
    }

    private func line(_ at: Double, _ event: HistoryRecord.Event, _ label: String, _ duration: Double?,
                      kind: String = "countdown") -> HistoryLine {
        let record = HistoryRecord(at: at, event: event, id: 1, label: label, kind: kind, duration: duration)
        return HistoryLine(record: record, text: record.json.compactEncoded())
    }

    @Test func sumsCountFinishesAndStopsByLabelAndDay() {
        let lines = [line(Double(now), .finish, "Work", 1500), line(Double(now) + 10, .finish, "Break", 300),
                     line(Double(now) + 20, .cancel, "Work", 100), line(Double(now) + 86400, .finish, "Work", 1499.5),
                     line(Double(now) + 86401, .stop, "Run", 60.5, kind: "stopwatch"), line(Double(now) + 86402, .snooze, "Wake", nil)]
        let byLabel = HistoryReport.sums(lines, by: .label, clock: .utc)
        #expect(byLabel == [.init(key: "Work", seconds: 2999.5, count: 2), .init(key: "Break", seconds: 300, count: 1),
                            .init(key: "Run", seconds: 60.5, count: 1)])
        #expect(HistoryReport.sumCSV(byLabel, by: .label) == ["label,seconds,count", "Work,2999.5,2", "Break,300.0,1", "Run,60.5,1"])
        #expect(HistoryReport.sumJSON(Array(byLabel.prefix(1)), by: .label) == [#"{"label":"Work","seconds":2999.5,"count":2}"#])
        let byDay = HistoryReport.sums(lines, by: .day, clock: .utc)
        #expect(byDay == [.init(key: "2026-11-29", seconds: 1800, count: 2), .init(key: "2026-11-30", seconds: 1560, count: 2)])
        #expect(HistoryReport.sumTable(byDay, by: .day) == ["DAY         TOTAL  TIMES", "2026-11-29  30:00      2",
                                                            "2026-11-30  26:00      2"])
    }

    @Test func tableAndCSVRows() {
        let lines = [line(Double(now) + 0.75, .finish, "Work, deep", 1500), line(Double(now) + 60, .ring, "", nil, kind: "calendar")]
        #expect(HistoryReport.table(lines, clock: .utc) == [
            "TIME                 EVENT   LABEL       DURATION",
            "2026-11-29 14:30:00  finish  Work, deep     25:00",
            "2026-11-29 14:31:00  ring    timer 1",
        ])
        #expect(HistoryReport.csv(lines, clock: .utc) == [
            "at,time,event,id,label,kind,duration,started,snooze,late,owner",
            "1795962600.75,2026-11-29 14:30:00,finish,1,\"Work, deep\",countdown,1500.0,,,,",
            "1795962660.0,2026-11-29 14:31:00,ring,1,,calendar,,,,,",
        ])
    }

    @Test func filteredBySinceAndLabel() {
        var reading = HistoryReading()
        reading.lines = [line(100, .finish, "Work", 1), line(200, .finish, "Break", 1), line(300, .finish, "Work", 1)]
        #expect(reading.filtered(since: 150, label: "Work").map(\.record.at) == [300])
        #expect(reading.filtered(since: nil, label: nil).count == 3)
        #expect(reading.filtered(since: 300, label: nil).map(\.record.label) == ["Work"])
    }
}
