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

    @Option(help: ArgumentHelp("Run this shell command at each zero (with TOCSIN_LABEL and TOCSIN_ELAPSED set; with -b the timer service runs it, with more: see share/doc/tocsin/commands-and-hooks.md).", valueName: "command"))
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

    @Flag(help: ArgumentHelp(AlarmSettings.Field.sound.help))
    var noSound = false

    @Flag(help: ArgumentHelp(AlarmSettings.Field.alert.help))
    var noAlert = false

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

    @Option(help: ArgumentHelp(AlarmSettings.Field.warn.help, valueName: "time"))
    var warn: TimeSpec?

    @Flag(help: ArgumentHelp(AlarmSettings.Field.warnSound.help))
    var noWarnSound = false

    @Flag(inversion: .prefixedNo, help: ArgumentHelp(
        "Wake the machine from suspend 2 minutes before zero, where permitted (tocsin doctor says; default: on for clock times)."))
    var wake: Bool?

    @OptionGroup var alarm: AlarmOptions

    /// The timers the words ask for (parsed again where needed: cheap, and
    /// no stored property the parser would have to be told to skip).
    private var plan: TimerPlan { (try? TimerPlan(words: words)) ?? .empty }

    mutating func validate() throws {
        guard `repeat` >= 0 else { throw ValidationError(tr("--repeat takes a whole number, 0 (forever) or more; got {count}", ["count": String(`repeat`)])) }
        let plan: TimerPlan
        do {
            plan = try TimerPlan(words: words)
        } catch {
            throw ValidationError(error.description)
        }
        if background {
            guard `repeat` != 0 else { throw ValidationError(tr("-b cannot repeat forever: give --repeat N")) }
            let foregroundOnly = [("--state", state != nil), ("--json", finish.json)]
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
        try AlarmSettings.Field.warn.check(warn)
        if alarm.notice != nil, plan.entries.contains(where: { if case .clock = $0.time { false } else { true } }) {
            throw ValidationError(tr("--notice is for clock times (tocsin until 7:00 Wake) and calendar alarms; a countdown's is --warn"))
        }
    }

    /// The alarm settings the options ask for.
    var settings: AlarmSettings {
        var settings = alarm.settings(quiet: finish.quiet, background: background, liveByDefault: background)
        settings.popup = settings.popup && !noAlert
        settings.sound = settings.sound && !noSound
        settings.warning = warn?.nanoseconds() ?? 0
        settings.warningSound = !noWarnSound
        return settings
    }

    func run() throws {
        if background {
            let client = try ServiceControl.connect(starting: true)
            try BackgroundPlan(plan, rounds: `repeat`, parallel: parallel, settings: settings, awake: awake,
                               now: Glibc.time(nil), wake: wake, command: finish.exec)
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
        // as an option (or a negative countdown): say the option's range, as
        // the command given has it.
        let command = command(of: arguments)
        for (index, word) in words.enumerated().dropFirst() where isNegativeNumber(word) {
            if let problem = rangeProblem(of: words[index - 1], value: word, in: command) { return problem }
        }
        if command != Countdown.self { return nil }
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

    /// The command `arguments` run: the subcommand they start with, or the
    /// countdown (the default one).
    private static func command(of arguments: [String]) -> any ParsableCommand.Type {
        guard let first = arguments.first else { return Countdown.self }
        return TocsinCommand.configuration.subcommands.first { ([$0._commandName] + $0.configuration.aliases).contains(first) }
            ?? Countdown.self
    }

    /// What `option` of `command` accepts, if it takes a time or a count,
    /// said as that command's own check says it with `value` (a negative
    /// value never reaches the check).
    static func rangeProblem(of option: String, value: String, in command: any ParsableCommand.Type) -> String? {
        let range: String?
        switch command {
        case is Skip.Type:
            guard option == "--count" else { return nil }
            return tr("--count takes 1 to {most} rings; got {count}", ["most": String(TimerEngine.maxSkippedRings), "count": value])
        case is Next.Type:
            range = option == "--count" ? Next.countRange : nil
        case is Countdown.Type, is Every.Type:
            // The alarm settings' own wording (`every` has no --warn).
            let fields = AlarmSettings.Field.allCases.filter { !(command is Every.Type) || $0 != .warn }
            range = fields.first { $0.options.contains(option) }?.takes
        default:
            range = nil
        }
        return range.map { tr("{problem}; got {value}", ["problem": $0, "value": value]) }
    }

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
