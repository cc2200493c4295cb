import Glibc
import Testing
import Tocsin
@testable import TocsinService

/// The service's rules without a bus, on a manual clock.
@Suite struct TimerServiceTests {
    let folder: String

    init() {
        var template = Array("/tmp/tocsin-service-XXXXXX".utf8CString)
        folder = String(cString: mkdtemp(&template))
    }

    func service(store: Bool = true) throws -> TimerService {
        let engine = try TimerEngine(delivery: .manualClock)
        return TimerService(engine: engine, store: store ? ServiceStore(path: folder + "/state/timers.json") : nil,
                            notifier: nil)
    }

    func value(_ name: String, of id: UInt64, in service: TimerService) -> ServiceValue? {
        service.list(for: .user).first { $0.contains { $0.0 == "id" && $0.1 == .id(id) } }?.first { $0.0 == name }?.1
    }

    @Test func idsAreStableAndAFinishIsSignalledOnce() throws {
        let service = try service()
        var finished: [(UInt64, String)] = []
        service.signals.finished = { id, label, _ in finished.append((id, label)) }
        let tea = try service.add(label: "Tea", seconds: 2, options: [:], caller: .user)
        let egg = try service.add(label: "Egg", seconds: 1, options: ["start": .flag(false)], caller: .user)
        #expect((tea, egg) == (1, 2))
        #expect(value("state", of: egg, in: service) == .text("idle"))
        try service.deliverEvents { try service.engine.advance(by: .seconds(2)) }
        #expect(finished.map(\.0) == [tea] && finished.map(\.1) == ["Tea"])
        #expect(value("state", of: tea, in: service) == .text("finished"))
        try service.remove(tea)
        #expect(try service.add(label: "Rice", seconds: 1, options: [:], caller: .user) == 3)  // never reused
    }

    @Test func aTimerWaitsForTheOneBeforeIt() throws {
        let service = try service()
        let work = try service.add(label: "Work", seconds: 25, options: [:], caller: .user)
        let rest = try service.add(label: "Break", seconds: 5, options: ["after": .id(work)], caller: .user)
        #expect(!service.isIdle)
        try service.deliverEvents { try service.engine.advance(by: .seconds(25)) }
        #expect(value("state", of: rest, in: service) == .text("running"))
        try service.deliverEvents { try service.engine.advance(by: .seconds(5)) }
        #expect(service.isIdle)
    }

    @Test func badCallsNameTheirError() throws {
        let service = try service()
        let tea = try service.add(label: "Tea", seconds: 5, options: [:], caller: .user)
        #expect(throws: ServiceError(.noSuchTimer, "no timer 99")) { try service.pause(99) }
        #expect { try service.resume(tea) } throws: { ($0 as? ServiceError)?.kind == .wrongState }
        #expect { _ = try service.add(label: "", seconds: 0, options: [:], caller: .user) } throws: {
            ($0 as? ServiceError)?.kind == .invalidArgument
        }
        #expect { _ = try service.add(label: "", seconds: 1, options: ["tick": .text("1")], caller: .user) } throws: {
            ($0 as? ServiceError)?.kind == .invalidArgument
        }
        #expect { try service.adjust(tea, by: .nan) } throws: { ($0 as? ServiceError)?.kind == .invalidArgument }
        #expect(service.list(for: .user).count == 1)  // a failed Add leaves nothing
    }

    @Test func addsBeyondTheTimerLimitAreRefusedUntilOneIsRemoved() throws {
        let service = try service(store: false)
        service.limits.timers = 2
        let tea = try service.add(label: "Tea", seconds: 1, options: [:], caller: .user)
        _ = try service.add(label: "Egg", seconds: 5, options: [:], caller: .user)
        try service.deliverEvents { try service.engine.advance(by: .seconds(1)) }  // a finished timer still counts
        #expect(throws: ServiceError(.limitReached, "the service keeps at most 2 timers, finished ones included until "
                                     + "removed: remove some (tocsin rm --finished), or raise tocsin service --max-timers")) {
            try service.add(label: "Rice", seconds: 1, options: [:], caller: .user)
        }
        #expect(service.list(for: .user).count == 2)
        try service.remove(tea)
        #expect(try service.add(label: "Rice", seconds: 1, options: [:], caller: .user) == 3)  // (a refused Add takes no id)
    }

    @Test func theStateFileKeepsIdsOptionsAndWaits() throws {
        do {
            let service = try service()
            let work = try service.add(label: "Work", seconds: 60, options: ["sound": .flag(false)], caller: .user)
            _ = try service.add(label: "Break", seconds: 5, options: ["after": .id(work), "clock": .text("awake")], caller: .user)
            try service.pause(work)
        }
        let again = try service()
        #expect(again.list(for: .user).count == 2)
        #expect(value("state", of: 1, in: again) == .text("suspended"))
        #expect(value("after", of: 2, in: again) == .id(1))
        #expect(value("clock", of: 2, in: again) == .text("awake"))
        #expect(again.entries[1]?.settings.sound == false)
        #expect(try again.add(label: "Next", seconds: 1, options: [:], caller: .user) == 3)
    }

    @Test func aBrokenStateFileIsSetAsideNotFatal() throws {
        _ = try service()
        let path = folder + "/state/timers.json"
        mkdir(folder + "/state", 0o700)
        let file = fopen(path, "w")
        fputs("{not json", file)
        fclose(file)
        let service = try service()
        #expect(service.list(for: .user).isEmpty)
        #expect(access(path + ".corrupt", F_OK) == 0)
    }

    var journal: String { folder + "/state/timers.journal" }

    func fileText(_ path: String) -> String {
        guard let file = fopen(path, "r") else { return "" }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while case let count = fread(&buffer, 1, buffer.count, file), count > 0 { bytes += buffer[..<count] }
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test func aChangeIsOneJournalLineAndTheJournalIsFoldedIntoASnapshot() throws {
        let service = try service()
        let tea = try service.add(label: "Tea", seconds: 60, options: [:], caller: .user)
        try service.pause(tea)
        #expect(fileText(journal).split(separator: "\n").count == 2)
        #expect(access(folder + "/state/timers.json", F_OK) != 0)  // no snapshot yet
        for _ in 0..<TimerService.journalLimit { try service.adjust(tea, by: 1) }
        #expect(access(folder + "/state/timers.json", F_OK) == 0)
        #expect(fileText(journal).split(separator: "\n").count < 10)
        let again = try self.service()
        #expect(value("duration", of: tea, in: again) == .number(60 + Double(TimerService.journalLimit)))
    }

    @Test func aLineCutShortByACrashIsIgnored() throws {
        do {
            let service = try service()
            _ = try service.add(label: "Tea", seconds: 60, options: [:], caller: .user)
        }
        let file = fopen(journal, "a")
        fputs("{\"change\":2,\"id\":2,\"kind\":\"coun", file)
        fclose(file)
        let again = try service()
        #expect(again.list(for: .user).count == 1)
        #expect(access(folder + "/state/timers.json.corrupt", F_OK) != 0)
    }

    @Test func aFinishHeldForAnnouncingSurvivesARestartBeforeIt() throws {
        do {
            let service = try service()
            _ = try service.add(label: "Bread", seconds: 0.05, options: [:], caller: .user)
        }
        usleep(100_000)  // it runs out while no service runs (on the boot clock)
        do {
            let first = try service()  // restored finished, its FINISH held: killed before announcing it
            #expect(value("state", of: 1, in: first) == .text("finished"))
        }
        let second = try service()
        var finished: [UInt64] = []
        second.signals.finished = { id, _, lateness in
            finished.append(id)
            #expect(lateness >= 0.04)
        }
        try second.deliverEvents { try second.engine.advance(by: .zero) }
        #expect(finished == [1])
        let third = try service()
        third.signals.finished = { id, _, _ in finished.append(id) }
        try third.deliverEvents { try third.engine.advance(by: .zero) }
        #expect(finished == [1])  // announced once
    }

    @Test func cancellingATimerCancelsTheRestOfItsSequenceWithoutRunningIt() throws {
        let service = try service()
        var changes: [(UInt64, ServiceValue?)] = []
        service.signals.changed = { id, properties in changes.append((id, properties.first { $0.0 == "state" }?.1)) }
        let work = try service.add(label: "Work", seconds: 1500, options: [:], caller: .user)
        let rest = try service.add(label: "Break", seconds: 300, options: ["after": .id(work)], caller: .user)
        let walk = try service.add(label: "Walk", seconds: 600, options: ["after": .id(rest)], caller: .user)
        try service.deliverEvents { try service.engine.advance(by: .seconds(1)) }
        changes = []
        try service.cancel(work)
        try service.deliverEvents { try service.engine.advance(by: .seconds(1)) }
        for id in [work, rest, walk] { #expect(value("state", of: id, in: service) == .text("canceled")) }
        #expect(value("after", of: walk, in: service) == nil)
        #expect(service.isIdle)  // nothing waits for a finish that cannot come
        // Break and Walk never showed as running: one Changed each, cancelled.
        #expect(changes.filter { $0.0 != work }.map(\.1) == [.text("canceled"), .text("canceled")])
        let again = try self.service()  // and so it was saved
        #expect(value("state", of: walk, in: again) == .text("canceled"))
        try again.restart(rest)  // a cancelled one runs again when asked
        #expect(value("state", of: rest, in: again) == .text("running"))
    }

    @Test func removingATimerCancelsTheRestOfItsSequence() throws {
        let service = try service()
        let work = try service.add(label: "Work", seconds: 1500, options: [:], caller: .user)
        let rest = try service.add(label: "Break", seconds: 300, options: ["after": .id(work)], caller: .user)
        try service.remove(work)
        #expect(value("state", of: rest, in: service) == .text("canceled"))
        #expect(service.isIdle)
    }

    @Test func aTimerWaitingForOneThatNeverStartedDoesNotHoldTheServiceUp() throws {
        let service = try service()
        let first = try service.add(label: "First", seconds: 60, options: ["start": .flag(false)], caller: .user)
        let second = try service.add(label: "Second", seconds: 60, options: ["after": .id(first)], caller: .user)
        #expect(service.isIdle)  // First may never start
        try service.restart(first)
        #expect(!service.isIdle)
        try service.deliverEvents { try service.engine.advance(by: .seconds(60)) }
        #expect(value("state", of: second, in: service) == .text("running"))  // the sequence still holds
    }

    @Test func refusalsNameTheTimerItsStateAndTheValue() throws {
        let service = try service()
        let tea = try service.add(label: "Tea", seconds: 300, options: [:], caller: .user)
        let soup = try service.add(label: "Soup", seconds: 300, options: [:], caller: .user)
        let run = try service.add(label: "Run", seconds: 0, options: ["kind": .text("stopwatch")], caller: .user)
        try service.pause(tea)
        try service.deliverEvents { try service.engine.advance(by: .seconds(10)) }
        try service.pause(soup)
        func message(_ body: () throws -> Void) -> String? {
            do { try body() } catch let error as ServiceError { return error.message } catch {}
            return nil
        }
        #expect(message { try service.pause(tea) } == "Tea is already paused")
        #expect(message { try service.resume(run) } == "Run is already running")
        #expect(message { try service.adjust(soup, by: -600) }
                == "Soup has 4:50 left; -10m would end it before now: use cancel, or -4m49s")
        #expect(message { try service.adjust(run, by: 60) } == "Run is a stopwatch: only countdowns and alarms can be adjusted")
        #expect(message { try service.adjust(tea, by: .nan) } == "adjust takes a finite number of seconds other than 0, got nan")
        try service.cancel(tea)
        #expect(message { try service.cancel(tea) } == "Tea was cancelled: only a running or paused timer can be cancelled")
        #expect(message { _ = try service.lap(tea) } == "Tea was cancelled: laps are taken while it runs or is paused")
        #expect(message { _ = try service.add(label: "X", seconds: -1, options: [:], caller: .user) }
                == "seconds must be a finite number above 0, at most 100 years; got -1.0")
    }

    /// A round of calls (ServiceBus+Turns) is written as it runs and synced
    /// once: a call that fails takes nothing of the others with it, and
    /// what the group answered is read back by the next service.
    @Test func aGroupOfCallsIsSavedTogether() throws {
        let first = try service()
        first.beginGroup()
        let tea = try first.add(label: "Tea", seconds: 60, options: [:], caller: .user)
        #expect(throws: ServiceError(.noSuchTimer, "no timer 99")) { try first.pause(99) }
        let egg = try first.add(label: "Egg", seconds: 90, options: [:], caller: .user)
        try first.pause(tea)
        let journal = folder + "/state/timers.journal"
        #expect(try TimerFile.read(journal).count(where: { $0 == UInt8(ascii: "\n") }) == 3)  // written before the sync
        #expect(first.endGroup() == nil)
        #expect(!first.grouping)
        let second = try service()
        #expect(second.list(for: .user).compactMap { $0.first { $0.0 == "id" }?.1 } == [.id(tea), .id(egg)])
        #expect(value("state", of: tea, in: second) == .text("suspended"))
    }

    /// A disk that takes the writes but fails the sync: the group's calls
    /// cannot be answered as saved, so their lines are cut off the journal
    /// and nothing more is written (the service then stops: ServiceBus+Turns).
    @Test func aGroupThatCannotBeSyncedIsCutOffAndSavingStops() throws {
        let first = try service()
        let kept = try first.add(label: "Kept", seconds: 60, options: [:], caller: .user)  // saved before
        first.beginGroup()
        _ = try first.add(label: "Lost", seconds: 60, options: [:], caller: .user)
        let journal = folder + "/state/timers.journal"
        #expect(try TimerFile.read(journal).count(where: { $0 == UInt8(ascii: "\n") }) == 2)
        first.store?.syncFailure = EIO
        let failure = first.endGroup()
        #expect(failure?.kind == .failed)
        #expect(failure?.message.contains("Input/output error") == true)
        #expect(first.savingStopped)
        #expect(try TimerFile.read(journal).count(where: { $0 == UInt8(ascii: "\n") }) == 1)
        #expect { try first.pause(kept) } throws: { ($0 as? ServiceError)?.kind == .failed }
        let second = try service()
        #expect(second.list(for: .user).compactMap { $0.first { $0.0 == "id" }?.1 } == [.id(kept)])
    }
}
