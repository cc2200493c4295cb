import ArgumentParser
import TocsinBase
import TocsinCLI
import TocsinNotify
import TocsinService

struct Ls: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ls", abstract: "List the timer service's timers: id, label, state, time left.")

    @Flag(help: "One JSON object per timer, one per line.")
    var json = false

    @Flag(help: "Then one line per change as it happens (with --json: an object with \"event\"), until ended.")
    var follow = false

    @Option(help: ArgumentHelp(
        "One status line in a bar's own protocol: plain, waybar, i3bar (with --follow), i3status-rs or polybar; with --follow, updated every second while timers run, silent while nothing changes.",
        valueName: "format"))
    var format: StatusBar.Format?

    @Option(help: ArgumentHelp("The status line's text from placeholders: {label} {remaining} {elapsed} {state} {percent} {count} {id} {text}.",
                               valueName: "template"))
    var template: String?

    func validate() throws {
        if format != nil || template != nil, json { throw ValidationError(tr("--json and --format are two different outputs: choose one")) }
        if format == .i3bar, !follow { throw ValidationError(tr("--format i3bar is a stream: add --follow (i3bar runs it as status_command)")) }
    }

    func run() throws {
        let client = try ServiceControl.connect()
        if format != nil || template != nil {
            return try StatusLine(client: client, format: format ?? .plain, template: template).run(follow: follow)
        }
        let json = json
        /// The calendar alarms' ids (from the list and each change), and the
        /// columns' widths so far.
        final class Seen {
            var calendars: Set<UInt64> = []
            var widths = ServiceTimers.Widths()
        }
        let seen = Seen()
        if follow {  // before the list: see subscribe
            client.subscribe { change in
                if case .changed(let timer) = change, timer.kind == .calendar { seen.calendars.insert(timer.id) }
                Descriptor.say(ServiceTimers.line(for: change, json: json, calendars: seen.calendars, widths: &seen.widths))
            }
        }
        let timers = try client.list()
        seen.calendars.formUnion(timers.filter { $0.kind == .calendar }.map(\.id))
        if follow {
            client.watch()  // the service stays up while this follows it
            if json {
                for timer in timers { Descriptor.say(ServiceTimers.json(timer)) }
            } else {
                for line in ServiceTimers.lines(timers, widths: &seen.widths) { Descriptor.say(line) }
            }
            return client.follow()
        }
        if json {
            for timer in timers { print(ServiceTimers.json(timer)) }
        } else {
            print(timers.isEmpty ? tr("No timers") : ServiceTimers.lines(timers, columns: Terminal.outputColumns).joined(separator: "\n"))
        }
    }
}

extension StatusBar.Format: ExpressibleByArgument {}

/// A call of the timer service's on the timers named (`Control`).
protocol ControlAction {
    /// The D-Bus method.
    static var method: String { get }
    static var configuration: CommandConfiguration { get }
}

enum Pause: ControlAction {
    static let method = "Pause"
    static let configuration = CommandConfiguration(
        commandName: "pause", abstract: "Pause service timers (id, label or a label's unique prefix).")
}

enum Cancel: ControlAction {
    static let method = "Cancel"
    static let configuration = CommandConfiguration(commandName: "cancel", abstract: "Cancel service timers.")
}

enum Restart: ControlAction {
    static let method = "Restart"
    static let configuration = CommandConfiguration(
        commandName: "restart", abstract: "Start service timers again from their full duration.")
}

enum Remove: ControlAction {
    static let method = "Remove"
    static let configuration = CommandConfiguration(commandName: "rm", abstract: "Remove service timers.")
}

enum Lap: ControlAction {
    static let method = "Lap"
    static let configuration = CommandConfiguration(commandName: "lap", abstract: "Record a lap on service timers.")
}

/// `tocsin pause|cancel|restart|rm|lap TIMER...`: one call on each timer
/// named (`tocsin resume TIMER...` shares its work; `rm` also takes
/// `--finished` and `--owner APP`).
struct Control<Action: ControlAction>: ParsableCommand {
    static var configuration: CommandConfiguration { Action.configuration }

    @Argument(help: "The timers.")
    var timers: [String] = []

    @Flag(help: ArgumentHelp("Remove every timer that is over: finished or cancelled.",
                             visibility: Action.self == Remove.self ? .default : .private))
    var finished = false

    @Option(help: ArgumentHelp("Remove every timer a sandboxed app made (its id, as tocsin ls shows it).",
                               valueName: "app", visibility: Action.self == Remove.self ? .default : .private))
    var owner: String?

    func validate() throws {
        if Action.self == Remove.self {
            guard [finished, owner != nil, !timers.isEmpty].count(where: { $0 }) == 1 else {
                throw ValidationError(tr("give the timers to remove, --finished or --owner APP"))
            }
        } else {
            guard !finished else { throw ValidationError("Unknown option '--finished'") }
            guard owner == nil else { throw ValidationError("Unknown option '--owner'") }
            guard !timers.isEmpty else { throw ValidationError("Missing expected argument '<timers> ...'") }
        }
    }

    func run() throws {
        let client = try ServiceControl.connect()
        if finished { return Descriptor.say(try ServiceControl.removeFinished(on: client)) }
        if let owner { return Descriptor.say(try ServiceControl.remove(ownedBy: owner, on: client)) }
        try ServiceControl.control(Action.method, timers, on: client, say: Descriptor.say)
    }
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

    /// The change in seconds.
    private func delta() throws -> Double {
        guard words.count == 2 else { throw ValidationError(tr("give a timer and a change: tocsin adjust Tea +5m (or -30s)")) }
        let change = words[1]
        guard let sign = change.first, sign == "+" || sign == "-" else {
            throw ValidationError(tr("'{change}' needs + or -: +{change} gives that much more time, -{change} takes it off", ["change": change]))
        }
        let time = String(change.dropFirst())
        guard case .duration(let nanoseconds)? = TimeSpec.parse(time) else {
            if TimeSpec.rangeProblem(time) != nil {
                throw ValidationError(tr("{change}: a change must be more than 0 and at most 100 years", ["change": change]))
            }
            throw ValidationError(tr("'{time}' is not a time: give e.g. {sign}90s, {sign}5m, {sign}1h30m", ["time": time, "sign": String(sign)]))
        }
        return Nanos.seconds(sign == "-" ? -nanoseconds : nanoseconds)
    }

    func run() throws {
        try ServiceControl.control("Adjust", [words[0]], delta: try delta(), on: try ServiceControl.connect(),
                                   say: Descriptor.say)
    }
}

struct Snooze: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Snooze a service timer that has rung: it rings again after its snooze (5 min unless added with --snooze) or the time given.",
        discussion: """
            A countdown or alarm that has rung runs again for that long; a calendar alarm rings once more \
            and keeps its times. tocsin snooze Wake, tocsin snooze Tea 10m.
            """)

    @Argument(help: "The timer (id, label or a label's unique prefix).")
    var timer: String

    @Argument(help: ArgumentHelp("How long: 90s, 10m, 1h (1 s to 24 h); default: the timer's own snooze.",
                                 valueName: "time"))
    var length: String?

    func validate() throws {
        _ = try seconds()
    }

    /// The length in seconds (0: the timer's own).
    private func seconds() throws -> Double {
        guard let length else { return 0 }
        guard case .duration(let nanoseconds)? = TimeSpec.parse(length),
              AlarmSettings.Field.snooze.limits?.range.contains(nanoseconds) == true
        else { throw ValidationError(tr("snooze for 1 s to 24 h: tocsin snooze Tea 10m (not '{length}')", ["length": length])) }
        return Nanos.seconds(nanoseconds)
    }

    func run() throws {
        try ServiceControl.control("Snooze", [timer], delta: try seconds(), on: try ServiceControl.connect(),
                                   say: Descriptor.say)
    }
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
        let client = try ServiceControl.connect()
        let only = try timer.map { word in try ServiceTimers.resolve(word, in: try client.list()) }
        client.watch()
        let runner = WatchRunner(only: only, timers: { ServiceControl.watched(on: client) },
                                 control: { method, id, delta in _ = try? client.control(method, id, delta: delta) })
        let status = runner.run()
        if status != 0 { throw ExitCode(status) }
    }
}
