import CTocsinTerminal
import Glibc
import Tocsin

/// The command's one thread: it polls the engine's fd (a polled engine, so
/// every timer handler runs here), the keyboard and a signalfd. Display,
/// keys and signals all happen on this thread, in order.
final class EventLoop {
    enum Wake {
        case key(UInt8)
        /// ↑ (-1) or ↓ (+1).
        case arrow(Int)
        case line  // a newline on a non-terminal standard input
        case endOfInput
        case resize
        case interrupt(Int32)  // SIGINT, SIGTERM, SIGHUP
        case timeout
    }

    let engine: TimerEngine
    private let signalFD: Int32
    private var watchInput: Bool
    private let interactive: Bool

    init(interactive: Bool, readInput: Bool) throws(TocsinError) {
        engine = try TimerEngine(delivery: .polled)
        signalFD = tocsin_signal_fd()
        self.interactive = interactive
        watchInput = readInput
    }

    deinit {
        engine.close()
        if signalFD >= 0 { close(signalFD) }
    }

    /// Waits for the next thing to happen (at most `timeoutMilliseconds`, -1:
    /// no limit), delivering due timer events first; returns what woke it
    /// besides the engine.
    func next(timeoutMilliseconds: Int32) -> [Wake] {
        var fds = [pollfd(fd: (try? engine.pollFileDescriptor()) ?? -1, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: watchInput ? STDIN_FILENO : -1, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: signalFD, events: Int16(POLLIN), revents: 0)]
        let ready = poll(&fds, nfds_t(fds.count), timeoutMilliseconds)
        guard ready > 0 else { return ready == 0 ? [.timeout] : [] }
        var wakes: [Wake] = []
        if fds[2].revents != 0 {
            while case let signal = tocsin_read_signal(signalFD), signal != 0 {
                wakes.append(signal == SIGWINCH ? .resize : .interrupt(signal))
            }
        }
        if fds[1].revents != 0 { wakes += readInput() }
        if fds[0].revents != 0 { _ = try? engine.dispatch() }
        return wakes
    }

    /// Keys from a terminal (↑ and ↓ as arrows, other escape sequences
    /// skipped; a lone Esc is a key), or newlines from a pipe.
    private func readInput() -> [Wake] {
        var buffer = [UInt8](repeating: 0, count: 64)
        let count = read(STDIN_FILENO, &buffer, buffer.count)
        guard count > 0 else {
            watchInput = false  // stop watching it
            return [.endOfInput]
        }
        let bytes = buffer[..<count]
        guard interactive else { return bytes.filter { $0 == 10 }.map { _ in .line } }
        var wakes: [Wake] = []
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            index += 1
            if byte == 0x1B, index < bytes.endIndex, bytes[index] == UInt8(ascii: "[") || bytes[index] == UInt8(ascii: "O") {
                index += 1
                while index < bytes.endIndex, !(0x40...0x7E).contains(bytes[index]) { index += 1 }
                if index < bytes.endIndex, bytes[index] == UInt8(ascii: "A") || bytes[index] == UInt8(ascii: "B") {
                    wakes.append(.arrow(bytes[index] == UInt8(ascii: "A") ? -1 : 1))
                }
                index += 1
                continue
            }
            wakes.append(.key(byte))
        }
        return wakes
    }
}

enum Key {
    static let space = UInt8(ascii: " ")
    static let escape: UInt8 = 0x1B
    static let tab: UInt8 = 0x09
    static let controlC: UInt8 = 0x03
    static let enter: UInt8 = 0x0D
    static let newline: UInt8 = 0x0A

    static func isQuit(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "q") || byte == UInt8(ascii: "Q") || byte == escape || byte == controlC
    }
}

/// Exit codes, as `--help` documents them.
public enum ExitStatus {
    public static let finished: Int32 = 0
    public static let failure: Int32 = 1
    public static let usage: Int32 = 2
    public static let cancelled: Int32 = 130

    /// Ended by `signal` (SIGTERM, SIGHUP): 128 + the signal's number, as a
    /// shell reports it (with a state file the timers run on in it; without
    /// one they were cancelled).
    public static func ended(by signal: Int32) -> Int32 { 128 + signal }

    /// SIGTERM and SIGHUP end the process, not the timers, when a state
    /// file keeps them: logout, shutdown and a closed terminal send them.
    static func keepsTimers(_ signal: Int32, statePath: String?) -> Bool {
        statePath != nil && (signal == SIGTERM || signal == SIGHUP)
    }
}
