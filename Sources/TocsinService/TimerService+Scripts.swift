import CGio
import Glibc
import Tocsin
import TocsinBase

/// Commands run for timers' events: a timer's own (`exec`, at its finish or
/// ring) and the user's hook files (`hooks/EVENT`, for every timer). An
/// event's runs go into the timer's record with the event (`noteScripts`,
/// before the caller saves), and are handed to the runner once that record
/// is synced; a run leaves the record when it is over. So a command runs at
/// least once: killed in between, the service runs it again at its next
/// start (`TOCSIN_AGAIN=1`).
extension TimerService {
    /// Adds the runs that event `event` of timer `id` calls for to its
    /// entry: the caller saves it (with the event's own change). `due`:
    /// when it was due (Unix seconds; nil: now).
    func noteScripts(_ event: ScriptEvent, of id: UInt64, due: Double? = nil) {
        guard var entry = entries[id] else { return }
        let due = due ?? Nanos.seconds(Clocks.realtime())
        var added = false
        if event == .finish || event == .ring, entry.command != nil {
            entry.runsDue.append(DueRun(event: event, source: .command, due: due))
            added = true
        }
        if hookPath(for: event) != nil {
            entry.runsDue.append(DueRun(event: event, source: .hook, due: due))
            added = true
        }
        guard added else { return }
        entries[id] = entry
        scriptsDue.insert(id)
        if scriptsStarted { scriptLaunch.schedule() }
    }

    /// The event a call makes, for its hook.
    static func scriptEvent(of call: Call) -> ScriptEvent? {
        switch call {
        case .pause: .pause
        case .resume: .resume
        case .cancel: .cancel
        case .restart: .start
        case .snooze: .snooze
        case .lap, .adjust, .skip: nil
        }
    }

    /// Runs what is due from now on (the service is on the bus): first what
    /// the files held from before (each again).
    package func startScripts() {
        scriptsStarted = true
        scriptsDue.formUnion(entries.values.filter { !$0.runsDue.isEmpty }.map(\.id))
        if !scriptsDue.isEmpty { scriptLaunch.schedule() }
    }

    /// Hands the runs not yet handed to the runner, once their records are
    /// synced (an idle turn of low priority: after the round of calls that
    /// wrote them, whose group synced them, and after the events' flush).
    func launchScripts() {
        guard scriptsStarted, !savingStopped else { return }
        if eventsUnsynced { flushEvents() }
        let now = Nanos.seconds(Clocks.realtime())
        var dropped: [UInt64] = []
        for id in scriptsDue.sorted() {
            guard var entry = entries[id] else { continue }
            let label = (try? engine.label(of: entry.timer)) ?? ""
            let reading = (try? engine.readings(of: [entry.timer]))?.first ?? nil
            for index in entry.runsDue.indices where entry.runsDue[index].token == 0 {
                let due = entry.runsDue[index]
                let path: String
                let arguments: [String]
                switch due.source {
                case .command:
                    guard let command = entry.command else { continue }
                    (path, arguments) = ("/bin/sh", ["-c", command])
                case .hook:
                    guard let hook = hookPath(for: due.event) else { continue }  // (gone or spoilt meanwhile: said, dropped below)
                    (path, arguments) = (hook, [])
                }
                let token = nextScriptToken
                nextScriptToken += 1
                entry.runsDue[index].token = token
                scriptTokens[token] = id
                let name = "timer \(id)" + (label.isEmpty ? "" : " (\(label))")
                    + (due.source == .command ? ": its \(due.event) command" : ": the \(due.event) hook")
                scripts.submit(ScriptRunner.Run(token: token, name: name, path: path, arguments: arguments,
                                                environment: scriptEnvironment(entry, due, label: label, now: now),
                                                input: Array(scriptInput(entry, due, label: label, reading: reading, now: now).encoded().utf8)))
            }
            let before = entry.runsDue.count
            entry.runsDue.removeAll { $0.token == 0 }  // (nothing left to run for them)
            if entry.runsDue.count != before { dropped.append(id) }
            entries[id] = entry
        }
        scriptsDue = []
        if !dropped.isEmpty { saveAfterEvent(dropped) }
    }

    /// A run is over: it leaves the timer's record (a restart from here on
    /// does not run it again).
    func scriptEnded(_ token: UInt64) {
        guard let id = scriptTokens.removeValue(forKey: token) else { return }
        if var entry = entries[id], let index = entry.runsDue.firstIndex(where: { $0.token == token }) {
            entry.runsDue.remove(at: index)
            entries[id] = entry
            saveAfterEvent([id])
        }
        idleMayChange()
    }

    private func scriptEnvironment(_ entry: Entry, _ due: DueRun, label: String, now: Double) -> [String: String] {
        var variables = [
            "TOCSIN_ID": String(entry.id), "TOCSIN_LABEL": label, "TOCSIN_EVENT": due.event.rawValue,
            "TOCSIN_KIND": entry.kind.rawValue, "TOCSIN_DUE": String(Int64(due.due.rounded(.down))),
            "TOCSIN_LATE": String(Int64(max(0, now - due.due).rounded(.down))), "TOCSIN_AGAIN": due.again ? "1" : "0",
        ]
        if let owner = entry.owner { variables["TOCSIN_OWNER"] = owner }
        return variables
    }

    /// The event as JSON (the command's standard input; docs/service-and-command.md).
    private func scriptInput(_ entry: Entry, _ due: DueRun, label: String, reading: TimerReading?, now: Double) -> JSON {
        var members: [(String, JSON)] = [
            ("version", .integer(1)), ("event", .string(due.event.rawValue)), ("source", .string(due.source.rawValue)),
            ("id", .integer(Int64(clamping: entry.id))), ("label", .string(label)), ("kind", .string(entry.kind.rawValue)),
            ("due", .number(due.due)), ("late", .number(max(0, now - due.due))), ("again", .bool(due.again)),
            ("finishes", .integer(Int64(clamping: entry.finishes))),
        ]
        if let reading {
            members.append(("state", .string(reading.state.description)))
            members.append(("elapsed", .number(Nanos.seconds(reading.elapsed))))
            if let duration = reading.duration, reading.remaining != nil { members.append(("duration", .number(Nanos.seconds(duration)))) }
        }
        if let owner = entry.owner { members.append(("owner", .string(owner))) }
        return .object(members)
    }
}
