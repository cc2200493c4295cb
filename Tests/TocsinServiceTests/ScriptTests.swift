import Glibc
import Testing
import Tocsin
@testable import TocsinService

/// The rules of the commands the service runs (`exec`, hook files), without
/// a loop: who may set one, what each event puts in a timer's record, and
/// what a restart reads back. (Running them: Tests/service/test_scripts.py.)
@Suite struct ScriptTests {
    let folder: String

    init() {
        var template = Array("/tmp/tocsin-scripts-XXXXXX".utf8CString)
        folder = String(cString: mkdtemp(&template))
        mkdir(folder + "/hooks", 0o700)
    }

    func service() throws -> TimerService {
        let service = TimerService(engine: try TimerEngine(delivery: .manualClock),
                                   store: ServiceStore(path: folder + "/state/timers.json"), notifier: nil)
        service.hooksFolder = folder + "/hooks"
        return service
    }

    func hook(_ event: String, mode: mode_t = 0o700) {
        let path = folder + "/hooks/" + event
        let file = fopen(path, "w")
        fputs("#!/bin/sh\ntrue\n", file)
        fclose(file)
        chmod(path, mode)
    }

    func runs(_ service: TimerService, _ id: UInt64) -> [String] {
        service.entries[id]?.runsDue.map { "\($0.event.rawValue) \($0.source.rawValue)\($0.again ? " again" : "")" } ?? []
    }

    @Test func aSandboxedAppMayNotSetACommandAndNothingIsStored() throws {
        let service = try service()
        #expect(throws: ServiceError(.notPermitted,
                                     "org.example.Pomodoro is sandboxed: only the user's own programs may have the service run a command (exec)")) {
            _ = try service.add(label: "Tea", seconds: 60, options: ["exec": .text("touch /tmp/x")],
                                caller: Caller(app: "org.example.Pomodoro"))
        }
        #expect(service.list(for: .user).isEmpty)
        #expect(access(folder + "/state/timers.journal", F_OK) != 0)  // not a line written
        let own = try service.add(label: "Tea", seconds: 60, options: [:], caller: Caller(app: "org.example.Pomodoro"))
        #expect(try service.table(["exec"], for: .user).columns.contains { $0.0 == .command })
        #expect(service.entries[own]?.command == nil)
    }

    @Test func theCommandIsCheckedKeptListedAndReadBack() throws {
        #expect(throws: ServiceError(.invalidArgument, "exec must be a shell command, not empty")) {
            _ = try AddRequest(label: "", seconds: 1, options: ["exec": .text(" \n")]) { _ in false }
        }
        #expect(throws: ServiceError(.invalidArgument, "a stopwatch never finishes: exec is for countdowns and alarms")) {
            _ = try AddRequest(label: "", seconds: 0, options: ["exec": .text("true"), "kind": .text("stopwatch")]) { _ in false }
        }
        let service = try service()
        let id = try service.add(label: "Tea", seconds: 60, options: ["exec": .text("echo \"$TOCSIN_LABEL\"")], caller: .user)
        let row = service.list(for: .user)[0]
        #expect(row.contains { $0.0 == "exec" && $0.1 == .text("echo \"$TOCSIN_LABEL\"") })
        let again = try self.service()
        #expect(again.entries[id]?.command == "echo \"$TOCSIN_LABEL\"")
    }

    @Test func eachEventPutsItsRunsInTheRecordAndARestartReadsThemAsAgain() throws {
        hook("finish")
        hook("start")
        hook("pause", mode: 0o600)  // not executable: not run
        hook("cancel", mode: 0o722)  // writable by others: not run
        let service = try service()
        let tea = try service.add(label: "Tea", seconds: 1, options: ["exec": .text("true")], caller: .user)
        let rice = try service.add(label: "Rice", seconds: 60, options: [:], caller: .user)
        #expect(runs(service, tea) == ["start hook"])
        try service.pause(rice)
        try service.cancel(rice)
        #expect(runs(service, rice) == ["start hook"])
        #expect(service.hookComplaints[folder + "/hooks/pause"] == "is not executable (chmod u+x)")
        #expect(service.hookComplaints[folder + "/hooks/cancel"] == "may be written by others (chmod go-w)")
        try service.deliverEvents { try service.engine.advance(by: .seconds(1)) }
        #expect(runs(service, tea) == ["start hook", "finish exec", "finish hook"])
        #expect(!service.isIdle)  // commands due keep it up
        let restarted = try self.service()
        #expect(runs(restarted, tea) == ["start hook again", "finish exec again", "finish hook again"])
        #expect(restarted.entries[tea]?.runsDue[1].due == service.entries[tea]?.finishedAt)
    }

    /// A burst of pauses and resumes while their hooks wait: one run each
    /// stands for all, and no timer keeps more than `maxRunsDue`.
    @Test func runsNotHandedOverYetStandForTheSameEventAgainAndAreBounded() throws {
        hook("pause")
        hook("resume")
        let service = try service()
        let rice = try service.add(label: "Rice", seconds: 600, options: [:], caller: .user)
        for _ in 0..<50 {
            try service.pause(rice)
            try service.resume(rice)
        }
        #expect(runs(service, rice) == ["pause hook", "resume hook"])
        for index in service.entries[rice]!.runsDue.indices { service.entries[rice]!.runsDue[index].token = UInt64(index + 1) }  // handed over
        for _ in 0..<50 {
            try service.pause(rice)
            try service.resume(rice)
            for index in service.entries[rice]!.runsDue.indices where service.entries[rice]!.runsDue[index].token == 0 {
                service.entries[rice]!.runsDue[index].token = UInt64(1000 + index)  // (and these: each stuck behind a slow hook)
            }
        }
        #expect(service.entries[rice]?.runsDue.count == TimerService.maxRunsDue)
    }

    @Test func aRunOverLeavesTheRecord() throws {
        hook("finish")
        let service = try service()
        let tea = try service.add(label: "Tea", seconds: 1, options: [:], caller: .user)
        try service.deliverEvents { try service.engine.advance(by: .seconds(1)) }
        service.scriptTokens[7] = tea
        service.entries[tea]?.runsDue[0].token = 7
        service.scriptEnded(7)
        service.flushEvents()
        #expect(runs(service, tea).isEmpty && service.isIdle)
        #expect(runs(try self.service(), tea).isEmpty)
    }

    @Test func aRunOfAnEventThisVersionDoesNotKnowIsLeftOut() {
        #expect(DueRun(journal: .object([("event", .string("explode")), ("source", .string("hook")), ("due_ns", .integer(1))])) == nil)
        let run = DueRun(event: .ring, source: .command, due: 1_800_000_000.5)
        #expect(DueRun(journal: run.journal) == DueRun(event: .ring, source: .command, due: 1_800_000_000.5, again: true))
    }
}
