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
        func add(_ source: DueRun.Source) {
            // One not handed over yet stands for this one too (a burst of
            // pauses and resumes), and a timer keeps a bounded number: a
            // slow hook cannot make its record, and the journal, grow
            // without end.
            guard !entry.runsDue.contains(where: { $0.token == 0 && $0.event == event && $0.source == source }) else { return }
            guard entry.runsDue.count < Self.maxRunsDue else {
                if runsDueFull.insert(id).inserted {  // (said once until one is over)
                    logLine("timer \(id) has \(Self.maxRunsDue) commands due already: its \(event) \(source == .hook ? "hook" : "command") is not run, nor more until one is over")
                }
                return
            }
            entry.runsDue.append(DueRun(event: event, source: source, due: due))
            added = true
        }
        if event == .finish || event == .ring, entry.command != nil { add(.command) }
        if hookPath(for: event) != nil { add(.hook) }
        guard added else { return }
        entries[id] = entry
        scriptsDue.insert(id)
        if scriptsStarted { scriptLaunch.schedule() }
    }

    /// Runs one timer keeps due at most (not over yet).
    static let maxRunsDue = 32

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
    /// A record that could not be written (a full disk) does not hold its
    /// runs back: better run once than never.
    func launchScripts() {
        guard scriptsStarted, !savingStopped else { return }
        if eventsUnsynced { flushEvents() }
        var dropped: [UInt64] = []
        for id in scriptsDue.sorted() where launchRuns(of: id) { dropped.append(id) }
        scriptsDue = []
        if !dropped.isEmpty {
            saveAfterEvent(dropped)
            idleMayChange()
        }
    }

    /// Hands timer `id`'s runs not yet handed over to the runner (its entry
    /// updated first: the runner may end one at once). True if some were
    /// dropped instead (a hook gone or spoilt meanwhile, said once).
    @discardableResult
    func launchRuns(of id: UInt64) -> Bool {
        guard let entry = entries[id] else { return false }
        let (launched, runs) = runs(of: entry)
        entries[id] = launched
        for run in runs { scripts.submit(run) }
        return launched.runsDue.count != entry.runsDue.count
    }

    /// Hands the runs of a timer being removed to the runner (they are no
    /// timer's any more: a restart does not run them again).
    func launchRuns(ofRemoved entry: Entry) {
        guard scriptsStarted else { return }
        for run in runs(of: entry).runs { scripts.submit(run) }
    }

    /// `entry` with tokens for its runs not handed over yet (those that
    /// cannot run dropped), and those runs.
    private func runs(of entry: Entry) -> (Entry, runs: [ScriptRunner.Run]) {
        var entry = entry
        let id = entry.id
        let now = Nanos.seconds(Clocks.realtime())
        let label = (try? engine.label(of: entry.timer)) ?? ""
        let reading = (try? engine.readings(of: [entry.timer]))?.first ?? nil
        var runs: [ScriptRunner.Run] = []
        for index in entry.runsDue.indices where entry.runsDue[index].token == 0 {
            let due = entry.runsDue[index]
            let path: String
            let arguments: [String]
            switch due.source {
            case .command:
                guard let command = entry.command else { continue }
                (path, arguments) = ("/bin/sh", ["-c", command])
            case .hook:
                guard let hook = hookPath(for: due.event) else { continue }
                (path, arguments) = (hook, [])
            }
            let token = nextScriptToken
            nextScriptToken += 1
            entry.runsDue[index].token = token
            scriptTokens[token] = id
            let name = "timer \(id)" + (label.isEmpty ? "" : " (\(label))")
                + (due.source == .command ? ": its \(due.event) command" : ": the \(due.event) hook")
            runs.append(ScriptRunner.Run(token: token, name: name, path: path, arguments: arguments,
                                         environment: scriptEnvironment(entry, due, label: label, reading: reading, now: now),
                                         input: Array(scriptInput(entry, due, label: label, reading: reading, now: now).encoded().utf8)))
        }
        entry.runsDue.removeAll { $0.token == 0 }  // (nothing left to run for them)
        return (entry, runs)
    }

    /// A run is over: it leaves the timer's record (a restart from here on
    /// does not run it again).
    func scriptEnded(_ token: UInt64) {
        guard let id = scriptTokens.removeValue(forKey: token) else { return }
        runsDueFull.remove(id)
        if var entry = entries[id], let index = entry.runsDue.firstIndex(where: { $0.token == token }) {
            entry.runsDue.remove(at: index)
            entries[id] = entry
            saveAfterEvent([id])
        }
        idleMayChange()
    }

    private func scriptEnvironment(_ entry: Entry, _ due: DueRun, label: String, reading: TimerReading?, now: Double) -> [String: String] {
        var variables = [
            "TOCSIN_ID": String(entry.id), "TOCSIN_LABEL": label, "TOCSIN_EVENT": due.event.rawValue,
            "TOCSIN_KIND": entry.kind.rawValue, "TOCSIN_DUE": String(Int64(due.due.rounded(.down))),
            "TOCSIN_LATE": String(Int64(max(0, now - due.due).rounded(.down))), "TOCSIN_AGAIN": due.again ? "1" : "0",
        ]
        if let owner = entry.owner { variables["TOCSIN_OWNER"] = owner }
        // (As the command in the foreground has it.)
        if let reading { variables["TOCSIN_ELAPSED"] = Self.secondsText(reading.elapsed) }
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

    /// "1500", "0.5", "2.25": seconds to the millisecond, without trailing zeros.
    static func secondsText(_ nanoseconds: Int64) -> String {
        let milliseconds = max(0, nanoseconds) / 1_000_000
        var fraction = String(milliseconds % 1000)
        guard fraction != "0" else { return "\(milliseconds / 1000)" }
        fraction = String(repeating: "0", count: 3 - fraction.count) + fraction
        while fraction.hasSuffix("0") { fraction.removeLast() }
        return "\(milliseconds / 1000).\(fraction)"
    }
}
