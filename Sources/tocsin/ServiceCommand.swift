import ArgumentParser
import Glibc
import TocsinBase
import TocsinCLI
import TocsinNotify
import TocsinService

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

    @Option(help: ArgumentHelp(
        "How many live notifications show at once, those of the timers ending soonest; the others are summed up in one (default 3, or $TOCSIN_SERVICE_LIVE_LIMIT).",
        valueName: "count"))
    var liveLimit: Int = getenv("TOCSIN_SERVICE_LIVE_LIMIT").flatMap { Int(String(cString: $0)) } ?? 3

    @Option(help: ArgumentHelp(
        "Keep at most this many timers, finished ones included until removed; an Add beyond is refused (LimitReached; default 10000, or $TOCSIN_SERVICE_MAX_TIMERS).",
        valueName: "count"))
    var maxTimers: Int = getenv("TOCSIN_SERVICE_MAX_TIMERS").flatMap { Int(String(cString: $0)) } ?? 10_000

    @Option(help: ArgumentHelp(
        "Stop a timer's command or a hook file that runs longer than this (SIGTERM, then SIGKILL 3 s later; default 60, or $TOCSIN_SERVICE_COMMAND_LIMIT).",
        valueName: "seconds"))
    var commandLimit: Double = Self.environment("TOCSIN_SERVICE_COMMAND_LIMIT") ?? 60

    @Flag(help: ArgumentHelp(
        "Make this install's service startable by your session: link its D-Bus activation file and systemd unit into ~/.local/share, then have the bus and systemd read them (for an install into a prefix the bus does not search).",
        visibility: .default))
    var enable = false

    @Flag(help: ArgumentHelp(
        "Undo --enable: remove the links to this install's service files from ~/.local/share (its timers stay in their file).",
        visibility: .default))
    var disable = false

    func validate() throws {
        guard !(enable && disable) else { throw ValidationError(tr("--enable and --disable undo each other: give one")) }
        guard idleExit.isFinite, idleExit >= 0 else { throw ValidationError(tr("--idle-exit takes seconds >= 0")) }
        guard grace.isFinite, grace >= 0 else { throw ValidationError(tr("--grace takes seconds >= 0")) }
        guard (0...1000).contains(liveLimit) else { throw ValidationError(tr("--live-limit takes a count from 0 to 1000")) }
        guard commandLimit.isFinite, commandLimit > 0, commandLimit <= 86400 else {
            throw ValidationError(tr("--command-limit takes seconds above 0, at most 86400"))
        }
        guard (1...1_000_000).contains(maxTimers) else { throw ValidationError(tr("--max-timers takes a count from 1 to 1000000")) }
    }

    func run() throws {
        if enable || disable {
            for line in try enable ? ServiceClient.enableUserActivation() : ServiceClient.disableUserActivation() {
                print(line)
            }
            return
        }
        var options = ServiceMain.Options()
        options.idleExit = idleExit == 0 ? nil : idleExit
        options.statePath = state
        options.grace = grace
        options.quiet = quiet
        options.liveLimit = liveLimit
        options.maxTimers = maxTimers
        options.commandLimit = commandLimit
        let status = ServiceMain(options: options).run()
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
        print(ServiceControl.diagnosis().joined(separator: "\n"))
        print(Translations.doctorLine())
        if case .failure = diagnosis.sessionBus { throw ExitCode(ExitStatus.failure) }
    }
}
