import Glibc
import Testing
import Tocsin
@testable import TocsinService

/// What keeps the service's one thread from waiting on anyone, without a
/// bus: the events of one dispatch saved with one sync and announced after
/// it; the method table that refusals come from; the queues callers take
/// turns in.
@Suite struct ServiceLoadTests {
    let folder: String

    init() {
        var template = Array("/tmp/tocsin-load-XXXXXX".utf8CString)
        folder = String(cString: mkdtemp(&template))
    }

    @Test func twoHundredAlarmsRingingInOneSecondAreOneSyncAndAnnouncedAfterIt() throws {
        let store = ServiceStore(path: folder + "/state/timers.json")
        let engine = try TimerEngine(delivery: .manualClock)
        let service = TimerService(engine: engine, store: store, notifier: nil)
        try engine.setWallClock(.seconds(1_800_000_000))  // a Friday, 2027-01-15 08:00 UTC
        service.beginGroup()  // (as a round of calls: one sync for all)
        for index in 0..<200 {
            _ = try service.add(label: "Wake \(index)", seconds: 0, options: ["calendar": .text("*-*-* 08:00:30 UTC")],
                                caller: .user)
        }
        #expect(service.endGroup() == nil)
        let before = store.journalSyncs
        var syncsAtFirstSignal: Int?
        var finished = 0
        service.signals.finished = { _, _, _ in
            if syncsAtFirstSignal == nil { syncsAtFirstSignal = store.journalSyncs }
            finished += 1
        }
        try service.deliverEvents { try engine.setWallClock(.seconds(1_800_000_030)) }
        #expect(finished == 200)
        #expect(syncsAtFirstSignal == before + 1)  // recorded (synced) before anything is announced
        service.flushEvents()  // (the records of their announcing, which the loop syncs when idle)
        #expect(store.journalSyncs - before == 2)  // not 400 (bench/README.md: 1,000 in the real service)
        let again = TimerService(engine: try TimerEngine(delivery: .manualClock), store: ServiceStore(path: store.path), notifier: nil)
        #expect(again.list(for: .user).allSatisfy { row in row.contains { $0.0 == "finishes" && $0.1 == .id(1) } })
    }

    /// A record written before 0.9 may carry any tick, down to 1 ns (what
    /// froze the service): loaded, the timer ticks no more, and its record
    /// is written back without one.
    @Test func aRecordsTickIsDroppedWhenLoaded() throws {
        mkdir(folder + "/state", 0o700)
        let file = fopen(folder + "/state/timers.journal", "w")
        fputs(#"{"change":1,"id":1,"kind":"countdown","alert":false,"sound":false,"live":false,"engine":"#
              + #"{"format":"tocsin-timers","version":2,"saved_realtime_ns":1795816818083975182,"#
              + #""boot_id":"769a2d98-2879-415e-95c6-cdb0947ca7b6","saved_boottime_ns":22413420702300,"#
              + #""saved_awake_ns":22413420702750,"timers":[{"kind":"countdown","label":"x","duration_ns":59900000000,"#
              + #""tick_ns":1,"state":"idle","elapsed_ns":0,"laps_ns":[]}]}}"# + "\n", file)
        fclose(file)
        let engine = try TimerEngine(delivery: .manualClock)
        let service = TimerService(engine: engine, store: ServiceStore(path: folder + "/state/timers.json"), notifier: nil)
        let timer = try #require(service.entries[1]?.timer)
        let document = try engine.savedDocument(of: [timer])
        #expect(document.compactEncoded().contains(#""tick_ns":0"#))
        try service.restart(1)
        #expect(try service.deliverEvents { try engine.advance(by: .seconds(1)) } == 1)  // its STATE only: no tick
    }

    /// The interface's methods, as its XML declares them.
    static func declaredMethods() -> Set<String> {
        var names: Set<String> = []
        var rest = Substring(ServiceBus.introspection)
        while let start = rest.firstRange(of: "<method name=\"") {
            rest = rest[start.upperBound...]
            guard let end = rest.firstIndex(of: "\"") else { break }
            names.insert(String(rest[..<end]))
        }
        return names
    }

    @Test func everyDeclaredMethodIsInTheTableAndNothingElse() {
        // (Tests/service/test_calls.py compares the running service's
        // introspection with share/dbus-1/interfaces/dev.tocsin.Timers1.xml.)
        #expect(Self.declaredMethods() == Set(ServiceBus.methods.keys))
        #expect(Self.declaredMethods().count == 15)
    }

    @Test func eachAccessSaysWhatASandboxedAppMayCall() {
        let access = ServiceBus.methods.mapValues(\.access)
        #expect(access.filter { $0.value == .actsOnTimer }.keys.sorted()
                == ["Adjust", "Cancel", "Lap", "Pause", "Remove", "Restart", "Resume", "Skip", "SkipUntil", "Snooze"])
        #expect(access.filter { $0.value.onlyReads }.keys.sorted() == ["List", "ListColumns", "Subscribe"])
        #expect(access["Add"] == .creates && access["Watch"] == .serviceWide)
        for kind in ServiceBus.Access.allCases {
            let refused = kind.refusal(of: "X", to: "org.example.App") != nil
            #expect(refused == (kind == .serviceWide), "\(kind)")
        }
        #expect(ServiceBus.access(of: "Quit") == nil)  // not in the table: refused to everyone (execute)
    }

    @Test func callersTakeTurnsByIdentityThenByConnection() {
        var queues = FairQueues<String>()
        // The user floods from two connections; an app from ten.
        for index in 0..<4 {
            queues.append("u-a\(index)", identity: "user", connection: ":1.1")
            queues.append("u-b\(index)", identity: "user", connection: ":1.2")
        }
        for connection in 0..<10 { queues.append("app\(connection)", identity: "app x", connection: ":2.\(connection)") }
        #expect(queues.hasWaiting("user", ":1.2") && !queues.hasWaiting("user", ":1.3") && queues.hasWaiting("app x"))
        let first = (0..<8).compactMap { _ in queues.next() }
        // One of each identity in turn; within the user, one of each connection.
        #expect(first == ["u-a0", "app0", "u-b0", "app1", "u-a1", "app2", "u-b1", "app3"])
        #expect(queues.count == 10)
        let rest = queues.removeAll()
        #expect(rest.filter { $0.hasPrefix("u-a") } == ["u-a2", "u-a3"])  // each connection's in order
        #expect(queues.isEmpty && queues.next() == nil)
    }

    @Test func aLongLivedQueueIsCompactedAsItGoes() {
        var queue = Queue<Int>()
        for round in 0..<100 {
            for item in 0..<1000 { queue.append(round * 1000 + item) }
            for _ in 0..<999 { _ = queue.removeFirst() }
            #expect(queue.storage <= 2 * queue.count + 64, "round \(round): \(queue.storage) slots for \(queue.count)")
        }
        #expect(queue.count == 100 && queue.removeFirst() == 99_900)  // the 99,901st appended
    }
}
