import Glibc
import Testing
import Tocsin
@testable import TocsinService

/// The service's journal format, pinned: each timer's record as written by
/// 0.8.0 (the service's fields, every alarm setting set and at its default,
/// around the engine's timer file), and journals written then load the same
/// settings. A change to how a setting is coded fails here first.
@Suite struct JournalGoldenTests {
    let folder: String

    init() {
        var template = Array("/tmp/tocsin-golden-XXXXXX".utf8CString)
        folder = String(cString: mkdtemp(&template))
    }

    func service() throws -> TimerService {
        TimerService(engine: try TimerEngine(delivery: .manualClock),
                     store: ServiceStore(path: folder + "/state/timers.json"), notifier: nil)
    }

    /// Writes `text` (lines) as the journal, and a newline after it.
    func writeJournal(_ text: String) {
        mkdir(folder + "/state", 0o700)
        let file = fopen(folder + "/state/timers.journal", "w")
        fputs(text + "\n", file)
        fclose(file)
    }

    func journalLines() -> [String] {
        guard let file = fopen(folder + "/state/timers.journal", "r") else { return [] }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while case let count = fread(&buffer, 1, buffer.count, file), count > 0 { bytes += buffer[..<count] }
        return String(decoding: bytes, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    /// The lines 0.8.0 wrote for the three adds of `addEveryKind` (the
    /// engine's stamps are the clocks' when it ran; a run now compares the
    /// rest).
    static let golden = [
        #"{"change":1,"id":1,"kind":"countdown","alert":true,"sound":true,"live":true,"engine":{"format":"tocsin-timers","version":2,"saved_realtime_ns":1795816818083975182,"boot_id":"769a2d98-2879-415e-95c6-cdb0947ca7b6","saved_boottime_ns":22413420702300,"saved_awake_ns":22413420702750,"timers":[{"kind":"countdown","label":"Tea","duration_ns":60000000000,"tick_ns":0,"state":"running","elapsed_ns":0,"laps_ns":[]}]}}"#,
        #"{"change":2,"id":2,"kind":"countdown","alert":false,"sound":false,"live":false,"warn_ns":30000000000,"snooze_ns":600000000000,"ring_ns":120000000000,"sound_file":"/etc/hostname","volume_mdb":-12500,"fade_ns":15000000000,"pause_media":false,"engine":{"format":"tocsin-timers","version":2,"saved_realtime_ns":1795816818087034639,"boot_id":"769a2d98-2879-415e-95c6-cdb0947ca7b6","saved_boottime_ns":22413423407923,"saved_awake_ns":22413423407973,"timers":[{"kind":"countdown","label":"Egg","duration_ns":300000000000,"tick_ns":0,"state":"idle","elapsed_ns":0,"laps_ns":[],"clock":"awake"}]}}"#,
        #"{"change":3,"id":3,"kind":"calendar","alert":true,"sound":true,"live":true,"ring_ns":60000000000,"engine":{"format":"tocsin-timers","version":2,"saved_realtime_ns":1795816818088540834,"boot_id":"769a2d98-2879-415e-95c6-cdb0947ca7b6","saved_boottime_ns":22413424913576,"saved_awake_ns":22413424913666,"timers":[{"kind":"calendar","label":"Wake","duration_ns":25200000000000,"tick_ns":0,"state":"running","elapsed_ns":0,"laps_ns":[],"alarm_unix_ns":25200000000000,"calendar":"Mon..Fri *-*-* 07:00:00 UTC","wake":true}]}}"#,
    ]

    /// A line without the engine's stamps of the clocks: the service's
    /// members and the engine's timers.
    static func unstamped(_ line: String) -> String {
        guard let engine = line.firstRange(of: #""engine":"#), let timers = line.firstRange(of: #""timers":"#) else { return line }
        return String(line[..<engine.upperBound]) + "…" + String(line[timers.lowerBound...])
    }

    func addEveryKind(_ service: TimerService) throws {
        _ = try service.add(label: "Tea", seconds: 60, options: ["ring": .number(0)], caller: .user)
        _ = try service.add(label: "Egg", seconds: 300, options: [
            "start": .flag(false), "alert": .flag(false), "sound": .flag(false), "live": .flag(false),
            "warn": .number(30), "clock": .text("awake"), "snooze": .number(600), "ring": .number(120),
            "sound_file": .text("/etc/hostname"), "volume": .number(-12.5), "fade": .number(15),
            "pause_media": .flag(false),
        ], caller: .user)
        _ = try service.add(label: "Wake", seconds: 0, options: ["calendar": .text("Mon..Fri 07:00 UTC")], caller: .user)
    }

    @Test func eachAddIsWrittenAs080WroteIt() throws {
        try addEveryKind(try service())
        let lines = journalLines()
        #expect(lines.count == Self.golden.count)
        for (line, golden) in zip(lines, Self.golden) { #expect(Self.unstamped(line) == Self.unstamped(golden)) }
    }

    @Test func a080JournalLoadsItsSettingsAndIsWrittenBackTheSame() throws {
        writeJournal(Self.golden.joined(separator: "\n"))
        let service = try service()
        let rows = service.list(for: .user)
        #expect(rows.count == 3)
        func value(_ name: String, _ row: Int) -> ServiceValue? { rows[row].first { $0.0 == name }?.1 }
        #expect(value("live", 1) == .flag(false) && value("warn", 1) == .number(30) && value("snooze", 1) == .number(600))
        #expect(value("ring", 1) == .number(120) && value("sound_file", 1) == .text("/etc/hostname"))
        #expect(value("volume", 1) == .number(-12.5) && value("fade", 1) == .number(15) && value("pause_media", 1) == .flag(false))
        #expect(value("ring", 0) == .number(0) && value("snooze", 0) == .number(300) && value("pause_media", 0) == .flag(true))
        #expect(value("volume", 0) == nil && value("fade", 0) == nil && value("sound_file", 0) == nil)
        #expect(service.entries[2]?.settings.popup == false && service.entries[2]?.settings.sound == false)
        // Folded into a snapshot at the load; each record comes out as it went in.
        guard case .array(let timers)? = try ServiceStore(path: folder + "/state/timers.json").read()?["timers"] else {
            Issue.record("no snapshot")
            return
        }
        // (The service's members: the engine's part tells the time passed since.)
        func members(_ line: String) -> Substring { line[..<(line.firstRange(of: #""engine":"#)?.lowerBound ?? line.endIndex)] }
        let written = timers.map { members($0.compactEncoded()) }
        let expected = Self.golden.map { members("{" + $0.drop { $0 != "," }.dropFirst()) }  // less "change"
        #expect(written == expected)
    }

    /// Records with every member of the service's own beside the settings
    /// (owner, notification, after, finished_at_ns, finishes, announced,
    /// snoozed_until_ns), as 0.8.0 writes them: a finished countdown of an
    /// app's, waiting for timer 1, announced not yet; a snoozed calendar alarm.
    static let everyOwnMember = [
        #"{"change":1,"id":1,"kind":"countdown","alert":true,"sound":true,"live":true,"engine":{"format":"tocsin-timers","version":2,"saved_realtime_ns":1795816818083975182,"boot_id":"769a2d98-2879-415e-95c6-cdb0947ca7b6","saved_boottime_ns":22413420702300,"saved_awake_ns":22413420702750,"timers":[{"kind":"countdown","label":"Tea","duration_ns":60000000000,"tick_ns":0,"state":"idle","elapsed_ns":0,"laps_ns":[]}]}}"#,
        #"{"change":2,"id":2,"kind":"countdown","alert":true,"sound":true,"live":false,"owner":"org.example.Kitchen","notification":17,"after":1,"finished_at_ns":1795816800000000000,"finishes":3,"announced":false,"engine":{"format":"tocsin-timers","version":2,"saved_realtime_ns":1795816818083975182,"boot_id":"769a2d98-2879-415e-95c6-cdb0947ca7b6","saved_boottime_ns":22413420702300,"saved_awake_ns":22413420702750,"timers":[{"kind":"countdown","label":"Egg","duration_ns":300000000000,"tick_ns":0,"state":"finished","elapsed_ns":300000000000,"laps_ns":[]}]}}"#,
        #"{"change":3,"id":3,"kind":"calendar","alert":true,"sound":true,"live":true,"ring_ns":60000000000,"finished_at_ns":1795816800000000000,"finishes":1,"snoozed_until_ns":1795817100000000000,"engine":{"format":"tocsin-timers","version":2,"saved_realtime_ns":1795816818088540834,"boot_id":"769a2d98-2879-415e-95c6-cdb0947ca7b6","saved_boottime_ns":22413424913576,"saved_awake_ns":22413424913666,"timers":[{"kind":"calendar","label":"Wake","duration_ns":25200000000000,"tick_ns":0,"state":"idle","elapsed_ns":0,"laps_ns":[],"alarm_unix_ns":25200000000000,"calendar":"*-*-* 07:00:00 UTC","wake":true}]}}"#,
    ]

    @Test func theServicesOwnMembersLoadAndAreWrittenBackTheSame() throws {
        writeJournal(Self.everyOwnMember.joined(separator: "\n"))
        let service = try service()
        #expect(service.entries.keys.sorted() == [1, 2, 3])
        let egg = try #require(service.entries[2]), wake = try #require(service.entries[3])
        #expect(egg.owner == "org.example.Kitchen" && egg.notification == 17 && egg.after == 1)
        #expect(egg.finishedAt == 1_795_816_800 && egg.finishes == 3 && !egg.announced)
        #expect(wake.snoozedUntil == 1_795_817_100 && wake.finishes == 1 && wake.announced)
        let tea = try #require(service.entries[1])
        #expect(tea.owner == nil && tea.notification == nil && tea.after == nil && tea.finishedAt == nil && tea.finishes == 0)
        guard case .array(let timers)? = try ServiceStore(path: folder + "/state/timers.json").read()?["timers"] else {
            Issue.record("no snapshot")
            return
        }
        func members(_ line: String) -> Substring { line[..<(line.firstRange(of: #""engine":"#)?.lowerBound ?? line.endIndex)] }
        #expect(timers.map { members($0.compactEncoded()) } == Self.everyOwnMember.map { members("{" + $0.drop { $0 != "," }.dropFirst()) })
    }

    /// A record whose own members are out of range (a hand-edited or
    /// damaged journal) loads with those members left out, not a trap:
    /// "after": -1 stopped the service at every start (UInt64(-1)).
    @Test func ownMembersOutOfRangeAreLeftOut() throws {
        writeJournal(Self.everyOwnMember[1]
            .replacingOccurrences(of: #""notification":17,"after":1,"#, with: #""notification":-17,"after":-1,"#)
            .replacingOccurrences(of: #""finishes":3"#, with: #""finishes":-3"#))
        let egg = try #require(try service().entries[2])
        #expect(egg.after == nil && egg.notification == nil && egg.finishes == 1 && egg.owner == "org.example.Kitchen")
    }

    /// A journal line removing id -1, or a record of the largest id, is
    /// damage the load says (or passes over), never a trap.
    @Test func outOfRangeIdsInTheJournalNeverTrap() throws {
        for damage in [#"{"change":9,"removed":-1}"#, #"{"change":9,"id":9223372036854775807,"kind":"countdown"}"#] {
            writeJournal(Self.everyOwnMember[0] + "\n" + damage)
            _ = try service()  // loads what it can; a corrupt journal is set aside, said, and the service starts
            unlink(folder + "/state/timers.journal")
            unlink(folder + "/state/timers.json")
        }
    }

    /// A snapshot whose next id is the largest the files hold: Add says
    /// the ids are used up, and gives out none past it (its id + 1 would
    /// not fit the files: a trap at the next save, the store set aside).
    @Test func idsRunOutWithAnAnswerNotATrap() throws {
        mkdir(folder + "/state", 0o700)
        let file = fopen(folder + "/state/timers.json", "w")
        fputs(#"{"format":"tocsin-service","version":1,"change":0,"next_id":9223372036854775807,"timers":[]}"#, file)
        fclose(file)
        let service = try service()
        #expect { _ = try service.add(label: "Tea", seconds: 60, options: [:], caller: .user) } throws: {
            ($0 as? ServiceError)?.kind == .limitReached
        }
        #expect(service.entries.isEmpty)
    }

    /// A record of 0.4 (no live, no warning, nothing of 0.7) loads with
    /// the defaults of then: live, ringing once, the default snooze.
    @Test func aRecordOlderThanEverySettingLoadsWithTheDefaultsOfThen() throws {
        let engine = Self.golden[0][Self.golden[0].firstRange(of: #","engine":"#)!.lowerBound...]
        writeJournal(#"{"change":1,"id":1,"kind":"countdown","alert":true,"sound":false"# + engine)
        let rows = try service().list(for: .user)
        #expect(rows.count == 1)
        func value(_ name: String) -> ServiceValue? { rows.first?.first { $0.0 == name }?.1 }
        #expect(value("live") == .flag(true) && value("ring") == .number(0) && value("snooze") == .number(300))
        #expect(value("pause_media") == .flag(true) && value("warn") == .number(0))
    }
}
