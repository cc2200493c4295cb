import Tocsin
import TocsinBase

/// What each of the command's terminal runners (countdown, stopwatch,
/// watch) stands on: the terminal (raw keys; left as it was found, however
/// the run ends), the output (a live area, JSON lines, or final lines only)
/// and the event loop (a polled engine, the keys, the signals), all on the
/// command's one thread.
final class TerminalSession {
    let terminal = Terminal()
    let output: Output
    let loop: EventLoop

    /// `readInput`: watch standard input even when it is no terminal (a
    /// stopwatch laps on each line of a pipe); by default only a terminal's
    /// keys are read.
    init(json: Bool, readInput: Bool? = nil) throws(TocsinError) {
        output = Output(terminal: terminal, json: json)
        loop = try EventLoop(interactive: terminal.isInteractive, readInput: readInput ?? terminal.isInteractive)
    }

    var engine: TimerEngine { loop.engine }

    /// Runs `body` with the terminal's keys raw; then the live area is
    /// ended and the terminal put back, however `body` returns.
    func run(_ body: () -> Int32) -> Int32 {
        terminal.enterRawMode()
        defer {
            output.finish()
            terminal.restore()
        }
        return body()
    }

    /// Refuses to start: the terminal put back first, then `message` as one
    /// line on standard error. The exit status (failure).
    func refuse(_ message: String) -> Int32 {
        terminal.restore()
        Descriptor.complain("tocsin: \(message)")
        return ExitStatus.failure
    }
}
