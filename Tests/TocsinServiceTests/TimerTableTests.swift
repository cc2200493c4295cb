import CGio
import Glibc
import Testing
import Tocsin
@testable import TocsinService

/// `ListColumns`' table: what each column holds for each kind of timer, the
/// rows `List` and `Changed` make of it, and its way through GVariant.
@Suite struct TimerTableTests {
    typealias Column = TimerTable.Column

    func service() throws -> TimerService {
        TimerService(engine: try TimerEngine(delivery: .manualClock), store: nil, notifier: nil)
    }

    func column(_ column: Column, of table: TimerTable) -> TimerTable.Values? {
        table.columns.first { $0.0 == column }?.1
    }

    @Test func eachKindOfTimerHasItsColumnsAndMinusOneWhereOneDoesNotApply() throws {
        let service = try service()
        let tea = try service.add(label: "Tea", seconds: 300, options: ["volume": .number(-6), "fade": .number(10)], caller: .user)
        let run = try service.add(label: "Run", seconds: 0, options: ["kind": .text("stopwatch"), "clock": .text("awake")], caller: .user)
        let wake = try service.add(label: "Wake", seconds: 2_000_000_000, options: ["kind": .text("alarm")], caller: .user)
        let standup = try service.add(label: "Standup", seconds: 0, options: ["calendar": .text("Mon..Fri 09:00")], caller: .user)
        let rest = try service.add(label: "Rest", seconds: 60, options: ["after": .id(tea), "live": .flag(false)], caller: .user)
        try service.deliverEvents { try service.engine.advance(by: .seconds(2)) }
        _ = try service.lap(run)
        _ = try service.lap(run)
        try service.pause(tea)

        let table = try service.table([], for: .user)
        #expect(table.columns.map(\.0) == Column.allCases)
        #expect(table.isWellFormed)
        #expect(column(.id, of: table) == .ids([tea, run, wake, standup, rest]))
        #expect(column(.label, of: table) == .texts(["Tea", "Run", "Wake", "Standup", "Rest"]))
        #expect(column(.kind, of: table) == .codes([0, 1, 2, 3, 0]))
        #expect(column(.state, of: table) == .codes([2, 1, 1, 1, 0]))  // suspended, running, running, running, idle
        #expect(column(.clock, of: table) == .codes([0, 1, 0, 0, 0]))
        guard case .numbers(let remaining)? = column(.remaining, of: table),
              case .numbers(let duration)? = column(.duration, of: table),
              case .numbers(let alarmTime)? = column(.alarmTime, of: table),
              case .numbers(let next)? = column(.next, of: table)
        else { Issue.record("number columns missing"); return }
        #expect(remaining[0] == 298 && remaining[1] == -1 && remaining[4] == 60)
        #expect(remaining[2] > 0 && remaining[3] > 0)  // (until their wall-clock times: the engine's clock)
        #expect(duration[0] == 300 && duration[1] == -1 && duration[4] == 60)
        #expect(alarmTime[0] == -1 && alarmTime[1] == -1 && alarmTime[2] == 2_000_000_000 && alarmTime[3] > 0)
        #expect(next.enumerated().allSatisfy { $0.offset == 3 ? $0.element == alarmTime[3] : $0.element == -1 })
        #expect(column(.calendar, of: table) == .textsByID([(standup, "Mon..Fri *-*-* 09:00:00")]))
        guard case .lapsByID(let laps)? = column(.laps, of: table) else { Issue.record("no laps"); return }
        #expect(laps.map(\.0) == [run] && laps[0].1.count == 2)
        #expect(column(.after, of: table) == .ids([0, 0, 0, 0, tea]))
        #expect(column(.setting(.live), of: table) == .codes([1, 1, 1, 1, 0]))
        #expect(column(.setting(.volume), of: table) == .numbers([-6, 0, 0, 0, 0]))
        #expect(column(.setting(.fade), of: table) == .numbers([10, 0, 0, 0, 0]))
        #expect(column(.finishedAgo, of: table) == .numbers([-1, -1, -1, -1, -1]))
        #expect(column(.setting(.soundFile), of: table) == .textsByID([]))
    }

    @Test func rowsLeaveOutWhatDoesNotApplyAsListDoes() throws {
        let service = try service()
        let egg = try service.add(label: "Egg", seconds: 1, options: [:], caller: .user)
        let run = try service.add(label: "", seconds: 0, options: ["kind": .text("stopwatch")], caller: .user)
        try service.deliverEvents { try service.engine.advance(by: .seconds(3)) }
        let rows = try service.table([], for: .user).rows()
        let names = rows.map { Set($0.map(\.0)) }
        let always: Set = ["id", "label", "kind", "state", "elapsed", "clock", "laps", "live", "warn", "warn_sound", "wake",
                           "finishes", "snooze", "ring", "pause_media", "alert", "sound"]
        #expect(names[0] == always.union(["remaining", "duration", "finished_ago"]))
        #expect(names[1] == always)
        let egg0 = Dictionary(rows[0], uniquingKeysWith: { first, _ in first })
        #expect(egg0["id"] == .id(egg) && egg0["state"] == .text("finished") && egg0["remaining"] == .number(0))
        #expect(egg0["laps"] == .numbers([]) && egg0["finishes"] == .id(1) && egg0["kind"] == .text("countdown"))
        let run0 = Dictionary(rows[1], uniquingKeysWith: { first, _ in first })
        #expect(run0["id"] == .id(run) && run0["label"] == .text("") && run0["elapsed"] == .number(3))
        #expect(service.list(for: .user).map { $0.map(\.0) } == rows.map { $0.map(\.0) })
        let table = try service.table([], for: .user)
        #expect(PropertyListEncoder.encode(table) == PropertyListEncoder.encode(table.rows()))
    }

    @Test func columnsAreTheIdThenTheOnesAskedForOnceEach() throws {
        #expect(try TimerTable.columns(named: []).get() == Column.allCases)
        #expect(try TimerTable.columns(named: ["remaining", "label", "id", "label"]).get() == [.id, .remaining, .label])
        #expect(throws: ServiceError.self) { try TimerTable.columns(named: ["label", "nope"]).get() }
        let service = try service()
        _ = try service.add(label: "Tea", seconds: 60, options: [:], caller: .user)
        #expect { _ = try service.table(["Label"], for: .user) } throws: {
            ($0 as? ServiceError)?.kind == .invalidArgument && ($0 as? ServiceError)?.message.hasPrefix("no column 'Label'; the columns are id, label,") == true
        }
        #expect(try service.table(["state"], for: .user).columns.map(\.0) == [.id, .state])
    }

    @Test func aTableGoesThroughGVariantUnchanged() throws {
        let service = try service()
        var template = Array("/tmp/tocsin-ring-XXXXXX".utf8CString)
        let folder = String(cString: mkdtemp(&template))
        defer { system("rm -rf '\(folder)'") }
        for index in 0..<50 { fclose(fopen("\(folder)/ring \(index).ogg", "w")) }
        for index in 0..<50 {
            let options: [String: ServiceValue] = index % 5 == 0 ? ["kind": .text("stopwatch")]
                : index % 7 == 0 ? ["calendar": .text("*:0/15")] : ["sound_file": .text("\(folder)/ring \(index).ogg")]
            _ = try service.add(label: "T\(index) é", seconds: Double(index + 1), options: options, caller: .user)
        }
        try service.deliverEvents { try service.engine.advance(by: .seconds(3)) }
        for stopwatch in stride(from: 1, through: 50, by: 5) { _ = try service.lap(UInt64(stopwatch)) }
        for table in [try service.table([], for: .user), try service.table(["laps", "label", "kind"], for: .user), TimerTable([(.id, .ids([]))])] {
            let variant = Variant.columns(table)!
            g_variant_ref_sink(variant)
            defer { g_variant_unref(variant) }
            #expect(String(cString: g_variant_get_type_string(variant)) == "a{sv}")
            #expect(Variant.table(variant) == table)
        }
        let variant = Variant.columns(try service.table([], for: .user))!
        g_variant_ref_sink(variant)
        defer { g_variant_unref(variant) }
        var types: [String: String] = [:]
        for (name, type, _) in Variant.decode(variant) { types[name] = type }
        #expect(types["id"] == "at" && types["label"] == "as" && types["state"] == "ay" && types["remaining"] == "ad")
        #expect(types["calendar"] == "a(ts)" && types["sound_file"] == "a(ts)" && types["laps"] == "a(tad)")
    }

    @Test func aMalformedReplyIsRefused() {
        #expect(!TimerTable([(.label, .texts(["Tea"]))]).isWellFormed)  // no ids
        #expect(!TimerTable([(.id, .ids([1, 2])), (.label, .texts(["Tea"]))]).isWellFormed)
        #expect(!TimerTable([(.id, .ids([1])), (.calendar, .textsByID([(2, "daily")]))]).isWellFormed)
        #expect(TimerTable([(.id, .ids([1])), (.calendar, .textsByID([(1, "daily")]))]).isWellFormed)
    }
}
