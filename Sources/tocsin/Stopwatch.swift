import ArgumentParser
import TocsinBase
import TocsinCLI

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

    /// Only to say why not: a sleep timer acts at zero, which a stopwatch never reaches.
    @Option(help: .hidden)
    var media: String?

    func validate() throws {
        if media != nil { throw ValidationError(tr("--media is for timers that reach zero; a stopwatch never does")) }
        if background, let (name, _) = [("--state", state != nil), ("--json", json)].first(where: { $0.1 }) {
            throw ValidationError(tr("{option} is for a stopwatch in the foreground; drop it or -b", ["option": name]))
        }
    }

    func run() throws {
        let label = label.isEmpty ? StopwatchRunner.defaultLabel : label.joined(separator: " ")
        if background {
            return Descriptor.say(try ServiceControl.startStopwatch(label: label, awake: awake, on: try ServiceControl.connect(starting: true)))
        }
        let status = try StopwatchRunner(label: label, json: json, statePath: state, awake: awake).run()
        if status != 0 { throw ExitCode(status) }
    }
}
