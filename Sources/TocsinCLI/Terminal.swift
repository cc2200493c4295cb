import CTocsinTerminal
import Glibc
import TocsinBase

/// The controlling terminal for the live display: raw keys, width, and the
/// promise to leave it as it was found (echo, line editing, cursor), on
/// every way out.
public final class Terminal {
    public let isInteractive: Bool
    private var saved = termios()
    private var raw = false

    public init() {
        isInteractive = isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1
    }

    /// Keys arrive one by one, unechoed; Ctrl-C arrives as a key (0x03), not
    /// a signal, so the loop can restore the terminal before it exits.
    public func enterRawMode() {
        guard isInteractive, !raw, tcgetattr(STDIN_FILENO, &saved) == 0 else { return }
        var settings = saved
        settings.c_lflag &= ~tcflag_t(ICANON | ECHO | ISIG | IEXTEN)
        settings.c_iflag &= ~tcflag_t(IXON | ICRNL)
        withUnsafeMutableBytes(of: &settings.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &settings)
        raw = true
        write("\u{1B}[?25l")  // hide the cursor
    }

    /// Puts the terminal back: settings, cursor. Safe to call more than once.
    public func restore() {
        guard raw else { return }
        write("\u{1B}[?25h")
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved)
        raw = false
    }

    deinit { restore() }

    public var columns: Int {
        let columns = Int(tocsin_terminal_columns(STDOUT_FILENO))
        return columns > 0 ? columns : 80
    }

    /// Standard output's width when it is a terminal; 0 (no limit) when it
    /// is not (a pipe, a file: a script reads whole lines).
    public static var outputColumns: Int {
        isatty(STDOUT_FILENO) == 1 ? max(0, Int(tocsin_terminal_columns(STDOUT_FILENO))) : 0
    }

    /// Writes text to standard output at once (no stdio buffering).
    public func write(_ text: String) {
        Descriptor.write(text, to: STDOUT_FILENO)
    }

}
