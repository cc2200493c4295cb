import ArgumentParser
import Glibc
import Tocsin
import TocsinCLI
import TocsinNotify
import TocsinService

/// `tocsin`: countdowns and stopwatches from the shell.
struct TocsinCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tocsin",
        abstract: "Countdowns and stopwatches in the terminal, with a desktop alert and sound at zero.",
        discussion: """
            EXAMPLES
              tocsin 25m "Tea is ready"      a 25-minute countdown with its label
              tocsin 90                      90 seconds (also 90s, 1h30m, 2.5m, 1.5h)
              tocsin until 14:30 Meeting     count down to a time of day (2:30pm too)
              tocsin 25m:Work 5m:Break       one after another (a pomodoro);
                                               --repeat 4 for four rounds
              tocsin --parallel 3m:Eggs 8m:Rice   side by side, one line each
              tocsin 10m --exec 'notify-send done'  run a command at zero
              tocsin 5s --json | jq .        one JSON object per event, for scripts
              tocsin stopwatch               count up; l or Enter records a lap
              tocsin 25m Tea --state ~/.tea  keep the timer in a file, rewritten
                                               on every change;
              tocsin list --state ~/.tea       see it from another shell;
              tocsin resume --state ~/.tea     carry on after tocsin was killed
                                               or the machine restarted
              tocsin sw --state ~/.run       a stopwatch kept the same way
              tocsin doctor                  what the desktop offers, and whether
                                               the timer service can start
              tocsin 25m Tea -b              hand the timer to the timer service
                                               and return at once;
              tocsin ls                        list its timers (--json; rm
                                               --finished clears the done ones);
              tocsin pause Tea                 also resume, cancel, restart, rm,
                                               lap: by id, label or prefix;
              tocsin adjust Tea +5m            give it more time (or -2m less)
              tocsin service                 the timer service itself, started
                                               by D-Bus activation (its API:
                                               share/doc/tocsin/dbus.md)

            KEYS (on a terminal)
              space  pause / resume     r  restart     q, Esc, Ctrl-C  cancel
              +  one more minute        -  one minute less (at a minute or
                                           less: finish now)

            Without a terminal nothing is shown but the final line (or, with
            --json, one JSON object per event: tick, state, finish, lap).

            EXIT STATUS
              0    finished
              1    anything else that went wrong (one line on stderr says what)
              2    bad usage
              130  cancelled by the user (q, Esc, Ctrl-C)
              143, 129  ended by SIGTERM, SIGHUP (logout, shutdown, a closed
                   terminal): with --state the timers run on in the file and
                   tocsin resume carries them on; without, they are cancelled
            """,
        version: "tocsin \(TimerEngine.version)",
        subcommands: [Countdown.self, Stopwatch.self, List.self, Resume.self, Doctor.self, Service.self, Ls.self, Pause.self,
                      Cancel.self, Restart.self, Rm.self, Lap.self, Adjust.self, Watch.self],
        defaultSubcommand: Countdown.self)
}

struct Countdown: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Count down (the default): tocsin 25m \"Tea is ready\".")

    @Argument(help: ArgumentHelp(
        "Times and an optional label: 90, 90s, 25m, 1h30m, 2.5m, 14:30, 2:30pm, until 14:30; 25m:Work gives one timer its label.",
        valueName: "time-or-label"))
    var words: [String] = []

    @Flag(help: "One JSON object per event (tick, state, finish) on standard output.")
    var json = false

    @Flag(help: "No desktop alert and no sound.")
    var quiet = false

    @Flag(help: "No sound at zero.")
    var noSound = false

    @Flag(help: "No desktop alert at zero.")
    var noAlert = false

    @Option(help: ArgumentHelp("Ring until the alert is dismissed, at most this long (e.g. 60s).", valueName: "time"))
    var ring: String?

    @Option(help: ArgumentHelp("Run this shell command at each zero (with TOCSIN_LABEL and TOCSIN_ELAPSED set).", valueName: "command"))
    var exec: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("Run the timers this many times (0: forever).", valueName: "n"))
    var `repeat`: Int = 1

    @Flag(help: "Run the timers side by side instead of one after another.")
    var parallel = false

    @Option(help: ArgumentHelp("Keep the timers in this file, rewritten on every change (see tocsin list, tocsin resume).",
                               valueName: "file"))
    var state: String?

    @Flag(help: "Count only time the machine is awake: a suspend pauses the countdowns (clock times follow the wall clock).")
    var awake = false

    @Flag(name: [.customShort("b"), .long], help: "Hand the timers to the timer service and return at once (see tocsin ls).")
    var background = false

    @Flag(inversion: .prefixedNo, help: ArgumentHelp(
        "A desktop notification showing the time left while it runs, with Pause, +1 min and Cancel (default: on with -b, off in the foreground)."))
    var live: Bool?

    @Option(help: ArgumentHelp("Warn this long before zero with a short sound and a notification (e.g. 1m).", valueName: "time"))
    var warn: String?

    func validate() throws {
        guard `repeat` >= 0 else { throw ValidationError("--repeat takes a whole number, 0 (forever) or more; got \(`repeat`)") }
        let plan = try plan()
        if background {
            guard `repeat` != 0 else { throw ValidationError("-b cannot repeat forever: give --repeat N") }
            let foregroundOnly = [("--state", state != nil), ("--json", json), ("--exec", exec != nil), ("--ring", ring != nil)]
            if let (name, _) = foregroundOnly.first(where: { $0.1 }) {
                throw ValidationError("\(name) is for timers in the foreground; drop it or -b")
            }
        }
        if awake, plan.entries.contains(where: { if case .clock = $0.time { true } else { false } }) {
            throw ValidationError("--awake counts time awake, and a clock time (14:30) follows the wall clock: use a duration (25m) with --awake")
        }
        _ = try ringDuration()
        _ = try warning()
    }

    private func warning() throws -> Duration? {
        guard let warn else { return nil }
        guard case .duration(let nanoseconds)? = TimeSpec.parse(warn), nanoseconds > 0, nanoseconds <= 86400 * 1_000_000_000 else {
            throw ValidationError("--warn takes a duration of at most a day (30s, 1m)")
        }
        return .nanoseconds(nanoseconds)
    }

    private func plan() throws -> TimerPlan {
        do {
            return try TimerPlan(words: words)
        } catch {
            throw ValidationError(error.description)
        }
    }

    private func ringDuration() throws -> Duration? {
        guard let ring else { return nil }
        guard case .duration(let nanoseconds)? = TimeSpec.parse(ring), nanoseconds <= 3600 * 1_000_000_000 else {
            throw ValidationError("--ring takes a duration of at most an hour (60s, 2m)")
        }
        return .nanoseconds(nanoseconds)
    }

    func run() throws {
        if background {
            try ServiceCommand.background(try plan(), rounds: `repeat`, parallel: parallel, alert: !quiet && !noAlert,
                                          sound: !quiet && !noSound, awake: awake, live: live ?? true, warning: try warning())
            return
        }
        var options = CountdownOptions()
        options.json = json
        options.alert = !quiet && !noAlert
        options.sound = !quiet && !noSound
        options.repeatSound = try ringDuration()
        options.exec = exec
        options.repeatCount = `repeat`
        options.parallel = parallel
        options.statePath = state
        options.awake = awake
        options.live = live ?? false
        options.warning = try warning()
        let status = try CountdownRunner(plan: try plan(), options: options).run()
        if status != 0 { throw ExitCode(status) }
    }
}

extension Countdown {
    /// What the argument parser would misname on the countdown's command
    /// line (the default one, or after `countdown`), said plainly: a
    /// negative time ("-5s" reads as an option) and an unknown option (with
    /// no time given, the parser says "no time given").
    static func misuse(_ arguments: [String]) -> String? {
        let subcommands = TocsinCommand.configuration.subcommands.flatMap { [$0._commandName] + $0.configuration.aliases }
        if let first = arguments.first, first != "countdown", subcommands.contains(first) { return nil }
        let words = arguments.prefix { $0 != "--" }  // after "--" every word is a word
        for (index, word) in words.enumerated() where word.count > 1 && word.hasPrefix("-") {
            if let next = word.dropFirst().first, next.isNumber || next == "." {
                if index > 0, arguments[index - 1] == "--repeat" { continue }  // its own check says it
                guard TimeSpec.parse(String(word.dropFirst())) != nil else { continue }
                return "\(word): a time cannot be negative: a countdown runs down from a time above 0 (5s, 25m)"
            }
            if !knows(option: word) { return "unknown option \(word) (tocsin --help lists them)" }
        }
        return nil
    }

    /// True if `option` (without its value) is one of the countdown's, or
    /// one the parser gives every command.
    private static func knows(option: String) -> Bool {
        let name = String(option.split(separator: "=", maxSplits: 1).first ?? "")
        if ["--version", "--help", "-h", "--generate-completion-script", "--experimental-dump-help"].contains(name) { return true }
        do {
            _ = try Countdown.parse(["1", name])
            return true
        } catch {
            return !Countdown.message(for: error).hasPrefix("Unknown option")
        }
    }
}

struct Stopwatch: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Count up; l or Enter records a lap, q stops.", aliases: ["sw"])

    @Argument(help: "A label.")
    var label: [String] = []

    @Flag(help: "One JSON object per event (state, lap) on standard output.")
    var json = false

    @Option(help: ArgumentHelp("Keep the stopwatch in this file, rewritten on every change.", valueName: "file"))
    var state: String?

    @Flag(help: "Count only time the machine is awake: a suspend pauses the stopwatch.")
    var awake = false

    @Flag(name: [.customShort("b"), .long], help: "Hand the stopwatch to the timer service and return at once (see tocsin ls).")
    var background = false

    func validate() throws {
        if background, let (name, _) = [("--state", state != nil), ("--json", json)].first(where: { $0.1 }) {
            throw ValidationError("\(name) is for a stopwatch in the foreground; drop it or -b")
        }
    }

    func run() throws {
        let label = label.isEmpty ? StopwatchRunner.defaultLabel : label.joined(separator: " ")
        if background { return try ServiceCommand.backgroundStopwatch(label: label, awake: awake) }
        let status = try StopwatchRunner(label: label, json: json, statePath: state, awake: awake).run()
        if status != 0 { throw ExitCode(status) }
    }
}

struct List: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show the timers a `tocsin --state FILE` keeps: label, state, time left.")

    @Option(help: ArgumentHelp("The timer file.", valueName: "file"))
    var state: String

    func run() throws {
        switch StateList.lines(path: state) {
        case .success(let lines):
            print(lines.isEmpty ? "No timers in \(state)" : lines.joined(separator: "\n"))
        case .failure(let error):
            FileHandleLine.standardError("tocsin: cannot read \(state): \(StateFile.reason(error, reading: state))")
            throw ExitCode(ExitStatus.failure)
        }
    }
}

struct Resume: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Carry on the countdowns (or the stopwatch) of a `tocsin --state FILE` that was killed or whose machine restarted.")

    @Option(help: ArgumentHelp("The timer file (kept current while it runs).", valueName: "file"))
    var state: String?

    @Argument(help: "Or: timer service timers to resume (id, label or a label's unique prefix).")
    var timers: [String] = []

    @Flag(help: "One JSON object per event on standard output.")
    var json = false

    @Flag(help: "No desktop alert and no sound.")
    var quiet = false

    @Option(help: ArgumentHelp("Run this shell command at each zero.", valueName: "command"))
    var exec: String?

    func validate() throws {
        guard (state == nil) != timers.isEmpty else {
            throw ValidationError("give either --state FILE or the service timers to resume")
        }
    }

    func run() throws {
        guard let state else { return try ServiceCommand.control("Resume", timers) }
        if let watch = try StopwatchRunner(resuming: state, json: json) {
            let status = watch.run()
            if status != 0 { throw ExitCode(status) }
            return
        }
        var options = CountdownOptions()
        options.json = json
        options.alert = !quiet
        options.sound = !quiet
        options.exec = exec
        options.statePath = state
        let status = try CountdownRunner(plan: .empty, options: options).resume()
        if status != 0 { throw ExitCode(status) }
    }
}

struct Doctor: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Say what the desktop offers: session bus, notification server, sound server, alarm sounds, timer service.",
        discussion: "Exit status 1 when there is no session bus (no alerts, no background timers), else 0.")

    func run() throws {
        let notifier = try Notifier(options: .init(quiet: true))
        defer { notifier.close() }
        let diagnosis = notifier.diagnose()
        print(diagnosis)
        print(ServiceCommand.diagnosis().joined(separator: "\n"))
        if case .failure = diagnosis.sessionBus { throw ExitCode(ExitStatus.failure) }
    }
}

/// Runs the command with the documented exit statuses: bad usage is one line
/// on standard error and status 2 (not the parser's 64).
func runCommand() -> Never {
    do {
        if let mistake = Countdown.misuse(Array(CommandLine.arguments.dropFirst())) {
            FileHandleLine.standardError("tocsin: \(mistake)")
            TocsinCommand.exit(withError: ExitCode(ExitStatus.usage))
        }
        var command = try TocsinCommand.parseAsRoot()
        try command.run()
        TocsinCommand.exit()
    } catch {
        let code = TocsinCommand.exitCode(for: error)
        guard code == .validationFailure else { TocsinCommand.exit(withError: error) }
        let message = TocsinCommand.message(for: error).split(separator: "\n").first.map(String.init) ?? "bad usage"
        FileHandleLine.standardError("tocsin: \(message)")
        TocsinCommand.exit(withError: ExitCode(ExitStatus.usage))
    }
}

runCommand()

struct Service: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "The timer service on the D-Bus session bus (dev.tocsin.Timers; its API: share/doc/tocsin/dbus.md).",
        discussion: """
            Normally started by D-Bus activation on the first call, not by hand.
            Its timers live in $XDG_STATE_HOME/tocsin/timers.json (~/.local/state
            by default): they outlive the service, logout and restarts.
            """)

    @Option(help: ArgumentHelp(
        "Exit after this many seconds with nothing running (0: never; default 60, or $TOCSIN_SERVICE_IDLE_EXIT).",
        valueName: "seconds"))
    var idleExit: Double = Self.environment("TOCSIN_SERVICE_IDLE_EXIT") ?? 60

    @Option(help: ArgumentHelp("Keep the timers in this file instead.", valueName: "file"))
    var state: String?

    @Option(help: ArgumentHelp(
        "A finish found on restart older than this gets a quiet alert (default 3600, or $TOCSIN_SERVICE_GRACE).",
        valueName: "seconds"))
    var grace: Double = Self.environment("TOCSIN_SERVICE_GRACE") ?? 3600

    /// A number from the environment (the activated service's only input
    /// besides its command line, which the activation file fixes).
    static func environment(_ name: String) -> Double? {
        getenv(name).flatMap { Double(String(cString: $0)) }
    }

    @Flag(help: "No desktop alerts or sounds.")
    var quiet = false

    @Flag(help: ArgumentHelp(
        "Make this install's service startable by your session: link its D-Bus activation file and systemd unit into ~/.local/share, then have the bus and systemd read them (for an install into a prefix the bus does not search).",
        visibility: .default))
    var enable = false

    func validate() throws {
        guard idleExit.isFinite, idleExit >= 0 else { throw ValidationError("--idle-exit takes seconds >= 0") }
        guard grace.isFinite, grace >= 0 else { throw ValidationError("--grace takes seconds >= 0") }
    }

    func run() throws {
        if enable {
            do throws(ServiceClient.Failure) {
                for line in try ServiceClient.enableUserActivation() { print(line) }
                return
            } catch {
                FileHandleLine.standardError("tocsin: \(error.message)")
                throw ExitCode(ExitStatus.failure)
            }
        }
        var options = ServiceMain.Options()
        options.idleExit = idleExit == 0 ? nil : idleExit
        options.statePath = state
        options.grace = grace
        options.quiet = quiet
        let status = ServiceMain(options: options).run()
        if status != 0 { throw ExitCode(status) }
    }
}
