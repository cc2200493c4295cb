import ArgumentParser
import Glibc
import Tocsin
import TocsinCLI
import TocsinService

/// The command as the timer service's client: `ls`, the controls, and
/// what `-b` hands over.
enum ServiceCommand {
    /// Connects, or exits 1 with one line that says there is no bus.
    static func client() throws -> ServiceClient {
        do {
            return try ServiceClient()
        } catch {
            FileHandleLine.standardError(
                "tocsin: \(error.message): background timers need the session's bus; run in the foreground without -b")
            throw ExitCode(ExitStatus.failure)
        }
    }

    /// `tocsin sw LABEL -b`: a stopwatch in the service.
    static func backgroundStopwatch(label: String, awake: Bool) throws {
        let client = try client()
        var options: [(String, ServiceValue)] = [("kind", .text("stopwatch"))]
        if awake { options.append(("clock", .text("awake"))) }
        let id = try run { () throws(ServiceClient.Failure) in try client.add(label: label, seconds: 0, options: options) }
        print("\(label): id \(id), stopwatch running (tocsin lap \(id), tocsin ls)")
    }

    /// `tocsin doctor`'s lines for the timer service and its state folder.
    static func diagnosis() -> [String] {
        var lines: [String] = []
        if let client = try? ServiceClient() {
            if let pid = client.runningService() {
                lines.append("timer service: running (pid \(pid))")
            } else if client.isActivatable() {
                lines.append("timer service: not running; the session bus starts it at the first call")
            } else {
                lines.append("timer service: cannot be started: " + ServiceClient.activationAdvice)
            }
        } else {
            lines.append("timer service: needs the session bus")
        }
        lines.append(ServiceStore.standard().diagnosis)
        return lines
    }

    /// Runs `body`; a service failure is one line and exit 1.
    static func run<Result>(_ body: () throws(ServiceClient.Failure) -> Result) throws -> Result {
        do {
            return try body()
        } catch {
            FileHandleLine.standardError("tocsin: \(error.message)")
            throw ExitCode(ExitStatus.failure)
        }
    }

    /// A timer named on the command line: its id, an exact label, or a
    /// label's unique prefix. Unknown: exit 1; ambiguous: exit 2, naming
    /// the candidates.
    static func resolve(_ word: String, in timers: [ServiceClient.Timer]) throws -> UInt64 {
        if let id = UInt64(word), timers.contains(where: { $0.id == id }) { return id }
        let exact = timers.filter { $0.text("label") == word }
        let candidates = exact.isEmpty ? timers.filter { ($0.text("label") ?? "").hasPrefix(word) } : exact
        switch candidates.count {
        case 1:
            return candidates[0].id
        case 0:
            FileHandleLine.standardError("tocsin: no timer \(word) (tocsin ls lists them)")
            throw ExitCode(ExitStatus.failure)
        default:
            let names = candidates.map { "\($0.id) \($0.text("label") ?? "")" }.joined(separator: ", ")
            FileHandleLine.standardError("tocsin: \(word) could be any of: \(names); give the id")
            throw ExitCode(ExitStatus.usage)
        }
    }

    /// `method` on each timer named.
    static func control(_ method: String, _ words: [String], delta: Double? = nil) throws {
        let client = try client()
        let timers = try run { () throws(ServiceClient.Failure) in try client.list() }
        for word in words {
            let id = try resolve(word, in: timers)
            let lap = try run { () throws(ServiceClient.Failure) in try client.control(method, id, delta: delta) }
            if method == "Lap", let lap {
                print("\(label(of: id, in: timers)): lap \(Display.stopwatch(nanoseconds: Int64(lap * 1e9)))")
            }
        }
    }

    static func label(of id: UInt64, in timers: [ServiceClient.Timer]) -> String {
        timers.first { $0.id == id }?.text("label") ?? String(id)
    }

    /// One line per timer: id, label, state, time left (or elapsed, or
    /// how long ago it finished).
    static func lines(_ timers: [ServiceClient.Timer]) -> [String] {
        let width = max(5, timers.map { ($0.text("label") ?? "").count }.max() ?? 5)
        let idWidth = timers.map { String($0.id).count }.max() ?? 1
        return timers.map { timer in
            let state = Display.state(timer.text("state") ?? "?")
            let detail: String
            if state == "finished" {
                detail = timer.number("finished_ago").map { "done \(Display.total(nanoseconds: Int64($0 * 1e9))) ago" } ?? "done"
            } else if let remaining = timer.number("remaining") {
                detail = "\(Display.clock(nanoseconds: Int64(remaining * 1e9), roundUp: true)) left"
            } else {
                detail = "\(Display.stopwatch(nanoseconds: Int64((timer.number("elapsed") ?? 0) * 1e9))) elapsed"
            }
            let id = String(timer.id)
            let label = timer.text("label").flatMap { $0.isEmpty ? nil : $0 } ?? "-"
            return String(repeating: " ", count: idWidth - id.count) + id + "  "
                + label + String(repeating: " ", count: max(0, width - label.count)) + "  "
                + state + String(repeating: " ", count: max(0, 9 - state.count)) + "  " + detail
        }
    }

    /// A timer as one JSON object.
    static func json(_ timer: ServiceClient.Timer) -> String {
        let order = ["id", "label", "kind", "state", "elapsed", "remaining", "duration", "alarm_time", "clock", "laps",
                     "after", "finished_ago"]
        let names = order.filter { timer[$0] != nil } + timer.keys.filter { !order.contains($0) }.sorted()
        return "{" + names.map { name in JSON.string(name).encoded() + ":" + json(timer[name]!) }.joined(separator: ",") + "}"
    }

    static func json(_ value: ServiceValue) -> String {
        switch value {
        case .id(let id): String(id)
        case .number(let number): number.isFinite ? "\((number * 1e6).rounded() / 1e6)" : "null"
        case .text(let text): JSON.string(text).encoded()
        case .flag(let flag): flag ? "true" : "false"
        case .numbers(let numbers): "[" + numbers.map { json(.number($0)) }.joined(separator: ",") + "]"
        }
    }

    /// Hands the plan to the service (`-b`): in order, each waiting for the
    /// one before unless `parallel`, `rounds` times. Prints each timer's id
    /// and when it ends.
    static func background(_ plan: TimerPlan, rounds: Int, parallel: Bool, alert: Bool, sound: Bool, awake: Bool,
                           live: Bool, warning: Duration?) throws {
        let client = try client()
        var previous: UInt64?
        let now = Glibc.time(nil)
        var startsAt = Double(now)  // when the next one in the sequence starts, for the line printed
        for _ in 0..<rounds {
            for entry in plan.entries {
                var options: [(String, ServiceValue)] = [("alert", .flag(alert)), ("sound", .flag(sound)), ("live", .flag(live))]
                if let warning { options.append(("warn", .number(Double(warning.nanoseconds) / 1e9))) }
                let seconds: Double
                if let wallTime = entry.time.wallTime(after: now) {
                    options.append(("kind", .text("alarm")))
                    seconds = Double(wallTime)
                } else {
                    seconds = Double(entry.time.nanoseconds()) / 1e9
                    if awake { options.append(("clock", .text("awake"))) }
                }
                if !parallel, let previous { options.append(("after", .id(previous))) }
                let id = try run { () throws(ServiceClient.Failure) in
                    try client.add(label: entry.label, seconds: seconds, options: options)
                }
                let ends = options.contains { $0.0 == "kind" } ? seconds : (parallel ? Double(now) : startsAt) + seconds
                if !parallel { startsAt = ends }
                var time = time_t(ends.rounded(.up))
                var local = tm()
                localtime_r(&time, &local)
                let clock = Display.timeOfDay([local.tm_hour, local.tm_min, local.tm_sec].map(Int.init))
                print("\(entry.label): id \(id), ends at \(clock)")
                previous = id
            }
        }
    }
}

struct Ls: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ls", abstract: "List the timer service's timers: id, label, state, time left.")

    @Flag(help: "One JSON object per timer, one per line.")
    var json = false

    @Flag(help: "Then one line per change as it happens (with --json: an object with \"event\"), until ended.")
    var follow = false

    func run() throws {
        let client = try ServiceCommand.client()
        let json = json
        if follow {  // (before the list: see subscribe)
            client.subscribe { change in
                switch change {
                case .changed(let timer):
                    say(json ? "{\"event\":\"changed\"," + ServiceCommand.json(timer).dropFirst()
                        : ServiceCommand.lines([timer])[0])
                case .finished(let id, let label, let lateness):
                    say(json ? "{\"event\":\"finished\",\"id\":\(id),\"label\":\(JSON.string(label).encoded()),\"lateness\":"
                        + ServiceCommand.json(.number(lateness)) + "}" : "\(id)  \(label)  finished")
                case .removed(let id):
                    say(json ? "{\"event\":\"removed\",\"id\":\(id)}" : "\(id)  removed")
                }
            }
        }
        let timers = try ServiceCommand.run { () throws(ServiceClient.Failure) in try client.list() }
        if follow {
            client.watch()  // the service stays up while this follows it
            for timer in timers { say(json ? ServiceCommand.json(timer) : ServiceCommand.lines([timer])[0]) }
            client.follow()
        }
        if json {
            for timer in timers { print(ServiceCommand.json(timer)) }
        } else {
            print(timers.isEmpty ? "No timers" : ServiceCommand.lines(timers).joined(separator: "\n"))
        }
    }
}

struct Pause: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Pause service timers (id, label or a label's unique prefix).")
    @Argument(help: "The timers.") var timers: [String]
    func run() throws { try ServiceCommand.control("Pause", timers) }
}

struct Cancel: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Cancel service timers.")
    @Argument(help: "The timers.") var timers: [String]
    func run() throws { try ServiceCommand.control("Cancel", timers) }
}

struct Restart: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Start service timers again from their full duration.")
    @Argument(help: "The timers.") var timers: [String]
    func run() throws { try ServiceCommand.control("Restart", timers) }
}

struct Rm: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "rm", abstract: "Remove service timers.")
    @Argument(help: "The timers.") var timers: [String] = []

    @Flag(help: "Remove every timer that is over: finished or cancelled.")
    var finished = false

    func validate() throws {
        guard finished != !timers.isEmpty else { throw ValidationError("give the timers to remove, or --finished") }
    }

    func run() throws {
        guard finished else { return try ServiceCommand.control("Remove", timers) }
        let client = try ServiceCommand.client()
        let over = try ServiceCommand.run { () throws(ServiceClient.Failure) in try client.list() }
            .filter { ["finished", "canceled"].contains($0.text("state")) }
        for timer in over {
            _ = try ServiceCommand.run { () throws(ServiceClient.Failure) in try client.control("Remove", timer.id) }
        }
        print(over.isEmpty ? "No timer is over" : "Removed \(over.count): "
            + over.map { ($0.text("label") ?? "").isEmpty ? String($0.id) : $0.text("label") ?? "" }.joined(separator: ", "))
    }
}

struct Lap: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Record a lap on service timers.")
    @Argument(help: "The timers.") var timers: [String]
    func run() throws { try ServiceCommand.control("Lap", timers) }
}

struct Adjust: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Give a service timer more time or less: tocsin adjust Tea +5m, tocsin adjust 3 -30s.")

    /// The timer, then +TIME or -TIME (taken as they are: -30s is no option).
    @Argument(parsing: .captureForPassthrough, help: ArgumentHelp(
        "The timer (id, label or a label's unique prefix), then +TIME or -TIME (90s, 5m, 1h30m).",
        valueName: "timer change"))
    var words: [String] = []

    func validate() throws {
        // (--help is taken as it is too: the words are not parsed as options)
        if words.contains("--help") || words.contains("-h") { throw CleanExit.helpRequest(Self.self) }
        _ = try delta()
    }

    private func delta() throws -> Double {
        guard words.count == 2, let sign = words[1].first, sign == "+" || sign == "-",
              case .duration(let nanoseconds)? = TimeSpec.parse(String(words[1].dropFirst()))
        else { throw ValidationError("give a timer and a change: tocsin adjust Tea +5m (or -30s)") }
        return (sign == "-" ? -1 : 1) * Double(nanoseconds) / 1e9
    }

    func run() throws { try ServiceCommand.control("Adjust", [words[0]], delta: try delta()) }
}

/// One line on standard output, written at once (a pipe to a status bar
/// must not wait for a buffer to fill).
func say(_ line: String) {
    let bytes = Array((line + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
}

struct Watch: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show service timers live; space pauses, + and - adjust, c cancels, q detaches (they keep running).",
        discussion: """
            With several timers the keys act on the selected one, marked ▸: at first the one that
            ends soonest; the arrow keys (or j and k, or Tab) choose another.
            """)

    @Argument(help: "One timer (id, label or a label's unique prefix); none: every running or paused one.")
    var timer: String?

    func run() throws {
        let client = try ServiceCommand.client()
        var only: UInt64?
        if let timer {
            only = try ServiceCommand.resolve(timer, in: try ServiceCommand.run { () throws(ServiceClient.Failure) in
                try client.list()
            })
        }
        client.watch()
        let runner = WatchRunner(only: only, timers: {
            (try? client.list())?.map { timer in
                WatchRunner.Watched(
                    id: timer.id, label: timer.text("label") ?? "", state: timer.text("state") ?? "",
                    remaining: timer.number("remaining"), duration: timer.number("duration"),
                    elapsed: timer.number("elapsed") ?? 0)
            }
        }, control: { method, id, delta in
            _ = try? client.control(method, id, delta: delta)
        })
        let status = runner.run()
        if status != 0 { throw ExitCode(status) }
    }
}
