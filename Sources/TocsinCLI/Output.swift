import Tocsin
import TocsinBase

/// Where the command's words go: a live area redrawn in place on a terminal,
/// JSON lines for scripts, or only the final lines.
final class Output {
    enum Mode { case live, json, quiet }

    let terminal: Terminal
    let mode: Mode
    private var liveLines: [String] = []

    init(terminal: Terminal, json: Bool) {
        self.terminal = terminal
        mode = json ? .json : terminal.isInteractive ? .live : .quiet
    }

    /// Replaces the live area with `lines` (terminal only).
    func live(_ lines: [String]) {
        guard mode == .live, lines != liveLines else { return }
        terminal.write(eraseLive() + lines.joined(separator: "\n"))
        liveLines = lines
    }

    /// A line that stays: above the live area on a terminal, alone otherwise
    /// (not in JSON mode, where `event` says everything).
    func permanent(_ line: String) {
        switch mode {
        case .live:
            terminal.write(eraseLive() + line + "\n")
            liveLines = []  // the next redraw paints the live area below it
        case .quiet:
            terminal.write(line + "\n")
        case .json:
            break
        }
    }

    /// Ends the live area: the cursor goes below it.
    func finish() {
        guard mode == .live else { return }
        terminal.write(eraseLive())
        liveLines = []
    }

    /// One JSON object per line (JSON mode only).
    func event(_ fields: [(String, JSON)]) {
        guard mode == .json else { return }
        terminal.write(JSON.object(fields).compactEncoded() + "\n")
    }

    /// Moves to the start of the live area and clears it.
    private func eraseLive() -> String {
        guard !liveLines.isEmpty else { return "" }
        return "\r" + String(repeating: "\u{1B}[A", count: liveLines.count - 1) + "\u{1B}[J"
    }
}

/// Seconds as a JSON number.
func seconds(_ nanoseconds: Int64?) -> JSON {
    nanoseconds.map { .number(Nanos.seconds($0)) } ?? .null
}
