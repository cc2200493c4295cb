import Glibc
import Testing
@testable import Tocsin

/// Zone offsets read from the compiled zone files with libc alone, against
/// Python's zoneinfo (an independent reader of the same files) as the oracle.
@Suite struct ZoneRulesTests {
    static let zones = [
        "Europe/Berlin", "America/New_York", "Australia/Sydney", "Australia/Lord_Howe", "America/Sao_Paulo",
        "Asia/Tehran", "Europe/Dublin", "Pacific/Chatham", "America/Nuuk", "Asia/Kolkata", "Africa/Casablanca", "UTC",
    ]

    /// Lines of `program`'s output, run by python3.
    static func python(_ program: String) -> [Substring] {
        let path = "/tmp/tocsin-zone-oracle-\(getpid()).py"
        guard let file = fopen(path, "w") else { return [] }
        fputs(program, file)
        fclose(file)
        defer { unlink(path) }
        return commandOutput("python3 \(path)").text.split(separator: "\n")
    }

    @Test func offsetsAgreeWithZoneinfoFrom2015To2055() throws {
        // Every 31 h from 2015 to 2055 (past 2037, where the footer's
        // rule takes over), and a second either side of every transition.
        var transitions = ""
        for zone in Self.zones {
            let rules = try #require(ZoneRules(named: zone))
            let near = rules.transitions.filter { $0 > 1_420_070_400 && $0 < 2_682_374_400 }.flatMap { [$0 - 1, $0] }
            transitions += "    \"\(zone)\": [\(near.map(String.init).joined(separator: ","))],\n"
        }
        let lines = Self.python("""
            import datetime, zoneinfo
            extra = {
            \(transitions)}
            for name in \(Self.zones):
                zone = zoneinfo.ZoneInfo(name)
                times = list(range(1420070400, 2682374400, 111600)) + extra[name]
                for t in times:
                    print(name, t, int(datetime.datetime.fromtimestamp(t, zone).utcoffset().total_seconds()))
            """)
        #expect(lines.count > 12 * 11_000)
        var mismatches: [String] = []
        var rules: [String: ZoneRules] = [:]
        for line in lines {
            let parts = line.split(separator: " ")
            guard parts.count == 3, let time = Int64(parts[1]), let offset = Int32(parts[2]) else { continue }
            let name = String(parts[0])
            if rules[name] == nil { rules[name] = ZoneRules(named: name) }
            if let ours = rules[name]?.offset(at: time), ours != offset, mismatches.count < 10 {
                mismatches.append("\(name) at \(time): \(ours) vs zoneinfo \(offset)")
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches)")
    }

    @Test func posixRulesOfTheFooters() throws {
        let berlin = try #require(PosixZoneRule("CET-1CEST,M3.5.0,M10.5.0/3"))
        #expect(berlin.offset(at: 1_806_195_599) == 3600)  // 2027-03-28 00:59:59 UTC
        #expect(berlin.offset(at: 1_806_195_600) == 7200)  // 01:00 UTC: 03:00 CEST
        let lordHowe = try #require(PosixZoneRule("<+1030>-10:30<+11>-11,M10.1.0,M4.1.0"))
        #expect(lordHowe.standardOffset == 37800 && lordHowe.daylightOffset == 39600)
        #expect(PosixZoneRule("<-03>3")?.offset(at: 1_800_000_000) == -10800)
        #expect(PosixZoneRule("EST5EDT")?.daylightOffset == -14400)
        for bad in ["", "C", "CET", "CET-1CEST,M13.5.0,M10.5.0", "CET-1CEST,M3.5.0", "<+03", "CET-1CEST,M3.5.0,M10.5.0/3x"] {
            #expect(PosixZoneRule(bad) == nil, "\(bad)")
        }
    }

    @Test func unknownOrHostileZoneNamesAreNotZones() {
        for name in ["Mars/Base", "../../etc/passwd", "/etc/localtime", "", "Europe/../../../etc/passwd"] {
            #expect(ZoneRules(named: name) == nil, "\(name)")
        }
    }
}
