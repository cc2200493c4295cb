import Glibc
import Testing
import Tocsin
@testable import TocsinService

/// Who calls the service, and what a sandboxed app may see and do.
@Suite struct CallerTests {
    let folder: String
    let app = Caller(app: "org.example.Pomodoro")

    init() {
        var template = Array("/tmp/tocsin-caller-XXXXXX".utf8CString)
        folder = String(cString: mkdtemp(&template))
    }

    func service() throws -> TimerService {
        TimerService(engine: try TimerEngine(delivery: .manualClock),
                     store: ServiceStore(path: folder + "/state/timers.json"), notifier: nil)
    }

    @Test func theAppIsTheApplicationNameOfItsFlatpakInfo() {
        #expect(Caller.appID(inFlatpakInfo: "[Application]\nname=org.example.Pomodoro\nruntime=x\n") == "org.example.Pomodoro")
        #expect(Caller.appID(inFlatpakInfo: "[Instance]\nname=wrong\n[Application]\n  name = org.a.B \n") == nil)  // "name " is no key
        #expect(Caller.appID(inFlatpakInfo: "[Instance]\nname=wrong\n[Application]\nname= org.a.B\r\n") == "org.a.B")
        #expect(Caller.appID(inFlatpakInfo: "[Instance]\nname=wrong\n") == nil)
        #expect(Caller.appID(inFlatpakInfo: "[Application]\nname=\n") == nil)
    }

    @Test func anotherUsersProgramIsRefusedAndAnUnsandboxedOneIsTheUser() throws {
        #expect(throws: ServiceError.self) { try Caller.identify(uid: getuid() + 1, pid: UInt32(getpid())) }
        #expect(try Caller.identify(uid: getuid(), pid: UInt32(getpid())) == .user)  // this process has no /.flatpak-info
    }

    /// Its pid may be someone else's by now: refused, not looked up.
    @Test func aCallerThatHasEndedIsRefused() throws {
        var child: pid_t = 0
        let arguments: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/true"), nil]
        defer { free(arguments[0]) }
        #expect(posix_spawn(&child, "/bin/true", nil, nil, arguments, nil) == 0)
        var status: Int32 = 0
        #expect(waitpid(child, &status, 0) == child)
        #expect { try Caller.identify(uid: getuid(), pid: UInt32(child)) } throws: {
            ($0 as? ServiceError) == ServiceError(.notPermitted, "process \(child), which called, has ended: it cannot be told apart")
        }
    }

    @Test func aSandboxedAppSeesAndControlsOnlyTheTimersItMade() throws {
        let service = try service()
        let tea = try service.add(label: "Tea", seconds: 60, options: [:], caller: .user)
        let work = try service.add(label: "Work", seconds: 1500, options: [:], caller: app)
        let appsIDs = try service.table([], for: app).ids, allIDs = try service.table(["owner"], for: .user).ids
        #expect(service.list(for: app).count == 1 && appsIDs == [work])
        #expect(service.list(for: .user).count == 2 && allIDs == [tea, work])
        #expect(throws: ServiceError(.notPermitted, "timer \(tea) is not org.example.Pomodoro's: a sandboxed app controls only the timers it made")) {
            try service.authorize(tea, for: app)
        }
        try service.authorize(work, for: app)
        try service.authorize(work, for: .user)  // the user controls all
        // It may wait only for its own timers: the user's is none of its.
        #expect(throws: ServiceError(.noSuchTimer, "no timer \(tea) to start after")) {
            try service.add(label: "Break", seconds: 300, options: ["after": .id(tea)], caller: app)
        }
        _ = try service.add(label: "Break", seconds: 300, options: ["after": .id(work)], caller: app)
        let owners = service.list(for: .user).map { row in row.first { $0.0 == "owner" }?.1 }
        #expect(owners == [nil, .text("org.example.Pomodoro"), .text("org.example.Pomodoro")])
        // The owner is in the journal, and comes back.
        let again = try self.service()
        #expect(again.entries[work]?.owner == "org.example.Pomodoro" && again.entries[tea]?.owner == nil)
        #expect(again.list(for: app).count == 2)
    }

    @Test func anAppKeepsAtMostItsShareOfTimers() throws {
        let service = try service()
        service.limits.perApp = 2
        _ = try service.add(label: "One", seconds: 60, options: [:], caller: app)
        _ = try service.add(label: "Two", seconds: 60, options: [:], caller: app)
        #expect { try service.add(label: "Three", seconds: 60, options: [:], caller: app) } throws: {
            ($0 as? ServiceError)?.kind == .limitReached && ($0 as? ServiceError)?.message.contains("tocsin rm --owner") == true
        }
        _ = try service.add(label: "Other", seconds: 60, options: [:], caller: Caller(app: "org.example.Other"))
        _ = try service.add(label: "Mine", seconds: 60, options: [:], caller: .user)  // the user's do not count
        #expect(service.list(for: .user).count == 4)
    }
}
