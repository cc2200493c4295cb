public import ArgumentParser
import Glibc
import Tocsin
import TocsinBase
public import TocsinCLI
import TocsinNotify

/// What happens at each zero, for `tocsin` and `tocsin resume --state`.
struct FinishOptions: ParsableArguments {
    @Flag(help: "One JSON object per event (tick, state, finish) on standard output.")
    var json = false

    @Flag(help: "No desktop alert and no sound.")
    var quiet = false

    @Option(help: ArgumentHelp("Run this shell command at each zero (with TOCSIN_LABEL and TOCSIN_ELAPSED set).", valueName: "command"))
    var exec: String?

    /// The runner's options these set.
    var countdownOptions: CountdownOptions {
        var options = CountdownOptions()
        options.json = json
        (options.settings.popup, options.settings.sound) = (!quiet, !quiet)
        options.exec = exec
        return options
    }
}

/// An option's time: 90, 25m, 1h30m, 0:30, 2:30pm. A word that could also
/// be a clock time ("5:00") reads as one here, so that the option's own
/// check ("takes a duration") names the problem.
extension TimeSpec: ExpressibleByArgument {
    public init?(argument: String) {
        if let problem = TimeSpec.rangeProblem(argument) {  // 0, 900000h: the option's check gives its range
            self = .duration(nanoseconds: problem.contains("longer than 0") ? 0 : Int64.max)
            return
        }
        guard let time = TimeSpec.parse(argument) ?? TimeSpec.parseClockTime(argument) else { return nil }
        self = time
    }
}

struct Countdown: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Count down (the default): tocsin 25m \"Tea is ready\".")

    @Argument(help: ArgumentHelp(
        "Times and an optional label: 90, 90s, 25m, 1h30m, 2.5m; H:MM:SS (0:00:30) and M:SS (0:45, 25:00) are lengths; a clock time is until 7:00, 2:30pm or 17:30 (1:00-12:59 alone is refused: either); 25m:Work gives one timer its label.",
        valueName: "time-or-label"))
    var words: [String] = []

    @OptionGroup var finish: FinishOptions

    @Flag(help: "No sound at zero.")
    var noSound = false

    @Flag(help: "No desktop alert at zero.")
    var noAlert = false

    @Option(help: ArgumentHelp(
        "Ring until the alarm is stopped, snoozed or dismissed, at most this long (0: play the sound once; default: 1m, or once without a terminal on standard input).",
        valueName: "time"))
    var ring: RingLength?

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
    var warn: TimeSpec?

    @Option(help: ArgumentHelp(
        "For clock times: this long before the alarm, a notification saying when it rings, with Skip this one (e.g. 30m; default: none).",
        valueName: "time"))
    var notice: TimeSpec?

    @Flag(inversion: .prefixedNo, help: ArgumentHelp(
        "Wake the machine from suspend 2 minutes before zero, where permitted (tocsin doctor says; default: on for clock times)."))
    var wake: Bool?

    @Option(help: ArgumentHelp("How long the alarm's Snooze button (and, with -b, tocsin snooze) puts it off (1s to 24h; default 5m).",
                               valueName: "time"))
    var snooze: TimeSpec?

    @OptionGroup var tone: ToneOptions

    /// The timers the words ask for (parsed once, in `validate`).
    private var plan = TimerPlan.empty

    /// Every property but `plan`: what the parser fills in. A new option
    /// must be named here too, or it is parsed and never read.
    private enum CodingKeys: CodingKey {
        case words, finish, noSound, noAlert, ring, `repeat`, parallel, state, awake, background, live, warn, notice, wake, snooze, tone
    }

    mutating func validate() throws {
        guard `repeat` >= 0 else { throw ValidationError(tr("--repeat takes a whole number, 0 (forever) or more; got {count}", ["count": String(`repeat`)])) }
        do {
            plan = try TimerPlan(words: words)
        } catch {
            throw ValidationError(error.description)
        }
        if background {
            guard `repeat` != 0 else { throw ValidationError(tr("-b cannot repeat forever: give --repeat N")) }
            let foregroundOnly = [("--state", state != nil), ("--json", finish.json), ("--exec", finish.exec != nil)]
            if let (name, _) = foregroundOnly.first(where: { $0.1 }) {
                throw ValidationError(tr("{option} is for timers in the foreground; drop it or -b", ["option": name]))
            }
        }
        if awake, wake == true {
            throw ValidationError(tr("--awake counts only time awake: a suspend does not bring it closer, so --wake cannot apply"))
        }
        if awake, plan.entries.contains(where: { if case .clock = $0.time { true } else { false } }) {
            throw ValidationError(tr("--awake counts time awake, and a clock time (14:30) follows the wall clock: use a duration (25m) with --awake"))
        }
        try RingLength.check(ring)
        if let warn, !warn.isDuration(within: .warn, aboveZero: true) {
            throw ValidationError(Self.warnRange)
        }
        try Self.check(snooze: snooze)
        try Self.check(notice: notice)
        if notice != nil, plan.entries.contains(where: { if case .clock = $0.time { false } else { true } }) {
            throw ValidationError(tr("--notice is for clock times (tocsin until 7:00 Wake) and calendar alarms; a countdown's is --warn"))
        }
        try tone.validate()
    }

    static var warnRange: String { tr("--warn takes a duration of at most a day (30s, 1m)") }
    static var snoozeRange: String { tr("--snooze takes a duration from 1s to a day (5m, 10m)") }

    /// `--notice`: above 0, at most a day.
    static func check(notice: TimeSpec?) throws {
        guard let notice else { return }
        guard notice.isDuration(within: .notice, aboveZero: true) else {
            throw ValidationError(tr("--notice takes a duration of at most a day (30m, 1h)"))
        }
    }

    /// `--snooze`: 1 s to a day.
    static func check(snooze: TimeSpec?) throws {
        guard let snooze else { return }
        guard snooze.isDuration(within: .snooze, aboveZero: true) else {
            throw ValidationError(snoozeRange)
        }
    }

    /// `--ring`, or its default: the service's (a minute) with -b; in the
    /// foreground a minute where someone at the terminal can stop it, once
    /// where nobody is (a script: it would hold it up).
    static func ringLength(_ ring: RingLength?, background: Bool) -> Int64 {
        ring?.nanoseconds ?? (background || isatty(0) == 1 ? AlarmSettings.defaultRing : 0)
    }

    /// The alarm settings the options ask for.
    var settings: AlarmSettings {
        var settings = AlarmSettings()
        settings.popup = !finish.quiet && !noAlert
        settings.sound = !finish.quiet && !noSound
        settings.live = live ?? background
        settings.warning = warn?.nanoseconds() ?? 0
        settings.notice = notice?.nanoseconds() ?? 0
        settings.snooze = snooze?.nanoseconds() ?? AlarmSettings.defaultSnooze
        settings.ring = Self.ringLength(ring, background: background)
        tone.apply(to: &settings)
        return settings
    }

    func run() throws {
        if background {
            let client = try ServiceControl.connect(starting: true)
            try BackgroundPlan(plan, rounds: `repeat`, parallel: parallel, settings: settings, awake: awake,
                               now: Glibc.time(nil), wake: wake)
                .run(on: client, say: Descriptor.say)
            return
        }
        var options = finish.countdownOptions
        options.settings = settings
        options.repeatCount = `repeat`
        options.parallel = parallel
        options.statePath = state
        options.awake = awake
        options.wake = wake
        let status = try CountdownRunner(plan: plan, options: options).run()
        if status != 0 { throw ExitCode(status) }
    }
}

extension TimeSpec {
    /// A duration (not a clock time) within the limits of alarm setting `field`.
    func isDuration(within field: AlarmSettings.Field, aboveZero: Bool) -> Bool {
        guard case .duration(let nanoseconds) = self, let limits = field.limits else { return false }
        return limits.range.contains(nanoseconds) && (!aboveZero || nanoseconds > 0)
    }
}

extension Countdown {
    /// What the argument parser would misname on the countdown's command
    /// line (the default one, or after `countdown`), said plainly: a
    /// negative time ("-5s" reads as an option) and an unknown option (with
    /// no time given, the parser says "no time given").
    static func misuse(_ arguments: [String]) -> String? {
        let words = arguments.prefix { $0 != "--" }  // after "--" every word is a word
        // A negative number after an option that takes a value would be read
        // as an option (or a negative countdown): say the option's range.
        for (index, word) in words.enumerated().dropFirst() where isNegativeNumber(word) {
            if let range = valueRanges[words[index - 1]] { return tr("{problem}; got {value}", ["problem": range, "value": word]) }
        }
        let subcommands = TocsinCommand.configuration.subcommands.flatMap { [$0._commandName] + $0.configuration.aliases }
        if let first = arguments.first, first != "countdown", subcommands.contains(first) { return nil }
        for (index, word) in words.enumerated() where word.count > 1 && word.hasPrefix("-") {
            if let next = word.dropFirst().first, next.isNumber || next == "." {
                if index > 0, ["--repeat", "--volume"].contains(arguments[index - 1]) { continue }  // their own checks say it
                guard TimeSpec.parse(String(word.dropFirst())) != nil else { continue }
                return tr("{word}: a time cannot be negative: a countdown runs down from a time above 0 (5s, 25m)", ["word": word])
            }
            if !knows(option: word) { return tr("unknown option {word} (tocsin --help lists them)", ["word": word]) }
        }
        return nil
    }

    /// What the options that take a time or a count accept, as their own
    /// checks say it (a negative value never reaches them).
    static var valueRanges: [String: String] { [
        "--warn": warnRange, "--snooze": snoozeRange, "--ring": RingLength.range, "--fade": ToneOptions.fadeRange,
        "--count": Next.countRange,
    ] }

    private static func isNegativeNumber(_ word: String) -> Bool {
        guard word.count > 1, word.hasPrefix("-"), let next = word.dropFirst().first else { return false }
        return next.isNumber || next == "."
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
