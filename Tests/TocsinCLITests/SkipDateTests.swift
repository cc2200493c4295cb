import Testing
import TocsinCLI

/// `tocsin skip --until DATE`: the date read in the alarm's zone, or the
/// one given, by the calendar machinery (daylight-saving changes included).
@Suite struct SkipDateTests {
    /// 2026-11-28 12:00:00 UTC.
    let now: Int64 = 1_795_867_200

    @Test(arguments: [
        ("2026-12-27", "UTC", 1_798_329_600),                    // midnight in the alarm's zone
        ("2026-12-27 18:00", "UTC", 1_798_394_400),
        ("2026-12-27T18:00:30", "UTC", 1_798_394_430),
        ("2026-12-27", "Europe/Berlin", 1_798_326_000),          // midnight in Berlin: 23:00 UTC the day before
        ("2026-12-27 Asia/Tokyo", "Europe/Berlin", 1_798_297_200),  // a zone given wins: 15:00 UTC on the 26th
        ("2027-03-28 02:30", "Europe/Berlin", 1_806_195_600),    // in the spring-forward gap: the change, 01:00 UTC
        ("2027-10-31 02:30", "Europe/Berlin", 1_824_942_600),    // twice that night: the first, 00:30 UTC
    ] as [(String, String, Int64)])
    func readInTheAlarmsZone(text: String, zone: String, expected: Int64) throws {
        #expect(try SkipDate.unixSeconds(text, alarmZone: zone, now: now) == expected)
    }

    @Test(arguments: [
        ("tomorrow", "is not a date"), ("27.12.2026", "is not a date"), ("2026-12-27 18:00 UTC extra", "is not a date"),
        ("2026-13-01", "is not a date"), ("2026-11-28", "is not after now"), ("2020-01-01 07:00", "is not after now"),
        ("2026-12-27 Mars/Olympus", "unknown time zone"),
    ])
    func refusedWithTheReason(text: String, words: String) {
        #expect {
            try SkipDate.unixSeconds(text, alarmZone: "UTC", now: now)
        } throws: { error in
            (error as? CommandFailure).map { $0.message.contains(words) && $0.status == 2 } ?? false
        }
    }
}
