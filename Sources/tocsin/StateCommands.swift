import ArgumentParser
import TocsinBase
import TocsinCLI

struct List: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show the timers a `tocsin --state FILE` keeps: label, state, time left.")

    @Option(help: ArgumentHelp("The timer file.", valueName: "file"))
    var state: String

    func run() throws {
        switch StateList.lines(path: state) {
        case .success(let lines):
            print(lines.isEmpty ? tr("No timers in {file}", ["file": state]) : lines.joined(separator: "\n"))
        case .failure(let error):
            Descriptor.complain("tocsin: cannot read \(state): \(StateFile.reason(error, reading: state))")
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

    @OptionGroup var finish: FinishOptions

    func validate() throws {
        guard (state == nil) != timers.isEmpty else {
            throw ValidationError(tr("give either --state FILE or the service timers to resume"))
        }
    }

    func run() throws {
        guard let state else {
            return try ServiceControl.control("Resume", timers, on: try ServiceControl.connect(), say: Descriptor.say)
        }
        if let watch = try StopwatchRunner(resuming: state, json: finish.json) {
            let status = watch.run()
            if status != 0 { throw ExitCode(status) }
            return
        }
        var options = finish.countdownOptions
        options.statePath = state
        let status = try CountdownRunner(plan: .empty, options: options).resume()
        if status != 0 { throw ExitCode(status) }
    }
}
