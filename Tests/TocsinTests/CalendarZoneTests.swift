import Testing
@testable import Tocsin

/// Calendar occurrences in time zones, across daylight-saving changes:
/// systemd-analyze as the oracle everywhere but in a DST gap, where systemd
/// skips the day and Tocsin rings once, at the change.
@Suite struct CalendarZoneTests {
    static let zones = ["Europe/Berlin", "America/New_York", "Australia/Sydney", "Australia/Lord_Howe", "America/Sao_Paulo",
                        "Asia/Tehran", "Europe/Dublin", "Pacific/Chatham", "Asia/Kolkata"]
    static let specs = ["Mon..Fri 07:00", "*-*-* 02:30", "*-*-* 01:30", "*-*-* 02:00", "*:0/15", "Sun 02:10:30",
                        "*-*~01 23:00", "daily", "hourly", "0,2,3:00"]

    /// The zone's changes from 2026 to 2029, and 2041 (from the footer's rule).
    static func changes(_ zone: String) -> [Int64] {
        guard let rules = ZoneRules(named: zone) else { return [] }
        let table = rules.transitions.filter { $0 > 1_767_225_600 && $0 < 1_861_920_000 }
        var later: [Int64] = []
        var instant: Int64 = 2_240_524_800  // 2041-01-01
        var previous = rules.offset(at: instant)
        while instant < 2_272_060_800 {  // 2042-01-01, by hours: the footer's changes
            instant += 3600
            if rules.offset(at: instant) != previous { later.append(instant) }
            previous = rules.offset(at: instant)
        }
        return table + later
    }

    @Test(arguments: zones)
    func occurrencesAroundEveryChangeAreSystemdsButInAGap(zone: String) throws {
        let rules = try #require(ZoneRules(named: zone))
        var compared = 0
        for spec in Self.specs {
            let parsed = try CalendarSpecTests.parse(spec + " " + zone)
            for change in Self.changes(zone) + [1_800_000_000] {
                let base = change - 5 * 3600
                let expected = CalendarSpecTests.systemdOccurrences(spec + " " + zone, after: base, count: 10)
                var ours: [Int64] = []
                var after = base
                while ours.count < 12, let next = parsed.next(after: after, in: rules) {
                    ours.append(next)
                    after = next
                }
                // Tocsin's extra rings: an occurrence in a gap, at the change itself.
                let gapRings = ours.filter { rules.offset(at: $0 - 1) < rules.offset(at: $0) && !expected.contains($0) }
                let withoutGaps = ours.filter { !gapRings.contains($0) }
                #expect(Array(withoutGaps.prefix(expected.count)) == expected, "\(spec) \(zone) after \(base)")
                compared += expected.count
            }
        }
        #expect(compared >= 100)  // (a zone without changes has one base)
    }

    @Test func aSkippedTimeRingsAtTheChangeAndATwiceTimeOnceAtItsFirst() throws {
        let berlin = try #require(ZoneRules(named: "Europe/Berlin"))
        let half = try CalendarSpecTests.parse("*-*-* 02:30 Europe/Berlin")
        // 2027-03-28: 02:00 CET becomes 03:00 CEST at 01:00 UTC; 02:30 rings then.
        #expect(half.next(after: 1_806_148_800, in: berlin) == 1_806_195_600)
        #expect(half.next(after: 1_806_195_600, in: berlin) == 1_806_280_200)  // 2027-03-29 00:30 UTC
        // 2027-10-31: 03:00 CEST becomes 02:00 CET at 01:00 UTC; 02:30 rings at 00:30 UTC only.
        #expect(half.next(after: 1_824_897_600, in: berlin) == 1_824_942_600)  // from 2027-10-30 12:00 UTC
        #expect(half.next(after: 1_824_942_600, in: berlin) == 1_825_032_600)  // 2027-11-01 01:30 UTC
        // Every quarter hour in the gap rings once, at the change.
        let quarters = try CalendarSpecTests.parse("*:0/15 Europe/Berlin")
        #expect(quarters.next(after: 1_806_194_700, in: berlin) == 1_806_195_600)  // 01:45 CET → 03:00 CEST
        #expect(quarters.next(after: 1_806_195_600, in: berlin) == 1_806_196_500)  // then 03:15 CEST
        // Lord Howe moves its clocks by 30 minutes: 02:00 becomes 02:30 on 2027-10-03.
        let lordHowe = try #require(ZoneRules(named: "Australia/Lord_Howe"))
        let quarter = try CalendarSpecTests.parse("*-*-* 02:15 Australia/Lord_Howe")
        let change = try #require(Self.changes("Australia/Lord_Howe").first { $0 > 1_822_000_000 })
        #expect(quarter.next(after: change - 3600, in: lordHowe) == change)
    }

    @Test func theLocalZoneComesFromTZ() throws {
        let noon = try CalendarSpecTests.parse("12:00")
        // 2027-01-15 08:00 UTC is 13:30 IST: the next 12:00 IST is 06:30 UTC the next day.
        #expect(noon.next(after: 1_800_000_000, in: ZoneRules.local(tz: "Asia/Kolkata")) == 1_800_081_000)
        #expect(noon.next(after: 1_800_000_000, in: ZoneRules.local(tz: ":UTC")) == 1_800_014_400)
        #expect(noon.next(after: 1_800_000_000, in: ZoneRules.local(tz: "/usr/share/zoneinfo/Asia/Kolkata")) == 1_800_081_000)
        #expect(noon.next(after: 1_800_000_000, in: ZoneRules.local(tz: "<+0530>-5:30")) == 1_800_081_000)  // a POSIX rule
    }
}
