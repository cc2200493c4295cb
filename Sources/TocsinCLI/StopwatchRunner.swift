import TocsinBase
import Glibc
public import Tocsin

/// `tocsin stopwatch`: counts up; laps with `l` or Enter (or a newline on a
/// piped standard input); space pauses, `r` starts over, `q`/Esc stops.
/// `tocsin resume` carries on one that a `--state` file kept.
///
/// `@unchecked Sendable`: everything runs on the command's one thread.
public final class StopwatchRunner: @unchecked Sendable {
    /// The label of a stopwatch given none.
    public static let defaultLabel = "Stopwatch"

    let label: String
    let session: TerminalSession
    var output: Output { session.output }
    var loop: EventLoop { session.loop }
    private var watch = TimerID(rawValue: 0)
    private var laps = 0
    /// Restored from a state file: run it as it is instead of a new one.
    private var restored = false

    let statePath: String?
    private lazy var stateFile = statePath.map(StateFile.init(path:))
    /// Counts only time the machine is awake.
    var awake = false

    public init(label: String, json: Bool, statePath: String? = nil, awake: Bool = false) throws(TocsinError) {
        self.label = label
        self.statePath = statePath
        self.awake = awake
        session = try TerminalSession(json: json, readInput: true)
    }

    /// Carries on the stopwatch that `tocsin stopwatch --state path` saved,
    /// running or suspended, with its laps; the time away counts as running
    /// time if it was running. Nil if the file holds a countdown, no such
    /// stopwatch, or cannot be read: `tocsin resume` then treats it as
    /// countdowns (and says what is wrong with it).
    public init?(resuming path: String, json: Bool) throws(TocsinError) {
        let session = try TerminalSession(json: json, readInput: true)
        let engine = session.engine
        guard let timers = try? engine.load(from: path) else { return nil }
        var found: TimerID?
        for timer in timers {
            guard try engine.duration(of: timer) == nil else { return nil }  // a countdown file
            if found == nil, [.running, .suspended].contains(try engine.state(of: timer)) { found = timer }
        }
        guard let found else { return nil }
        let saved = try engine.label(of: found)
        label = saved.isEmpty ? Self.defaultLabel : saved
        statePath = path
        self.session = session
        watch = found
        restored = true
        laps = try engine.laps(of: found).count
    }

    /// Runs until stopped: 0 with q or Esc, 130 with Ctrl-C or a signal.
    public func run() -> Int32 {
        session.run(count)
    }

    private func count() -> Int32 {
        if !restored, let stateFile, let reason = stateFile.write(loop.engine) {
            return session.refuse(tr("cannot write {file}: {reason}; nothing started", ["file": stateFile.path, "reason": reason]))
        }
        do {
            if !restored {
                watch = try loop.engine.stopwatch()
                try loop.engine.setLabel(label, for: watch)
                if awake { try loop.engine.setClock(.awake, for: watch) }
            }
            if output.mode == .live { try loop.engine.setTickInterval(.milliseconds(100), for: watch) }
            try loop.engine.setTickPolicy(.coalesce, for: watch)  // after a stall: one redraw, not thousands
            try loop.engine.setHandler(for: watch) { [unowned self] event in
                guard event.kind == .stateChange else { return }
                emit("state", state: event.state, elapsed: event.elapsed.nanoseconds)
                saveState()
            }
            if !restored { try loop.engine.start(watch) }
        } catch {
            output.permanent("tocsin: \(error)")
            return ExitStatus.failure
        }
        var status: Int32?
        var ended = false  // by SIGTERM or SIGHUP, with a state file
        while status == nil {
            redraw()
            for wake in loop.next(timeoutMilliseconds: -1) {
                switch wake {
                case .key(let key) where key == Key.controlC: status = ExitStatus.cancelled
                case .key(let key) where Key.isQuit(key): status = ExitStatus.finished
                case .key(let key) where key == UInt8(ascii: "l") || key == Key.enter || key == Key.newline: lap()
                case .key(Key.space): togglePause()
                case .key(let key) where key == UInt8(ascii: "r"): startOver()
                case .line: lap()
                case .interrupt(let signal) where ExitStatus.keepsTimers(signal, statePath: statePath):
                    status = ExitStatus.ended(by: signal)
                    ended = true
                case .interrupt(let signal):
                    status = signal == SIGTERM || signal == SIGHUP ? ExitStatus.ended(by: signal) : ExitStatus.cancelled
                default: break
                }
            }
        }
        let elapsed = (try? loop.engine.elapsed(of: watch))?.nanoseconds ?? 0
        if ended, let status, let statePath {  // ended, not stopped: it runs on in the file
            saveState()
            output.finish()
            output.permanent(tr("{label}: still running, {time}; tocsin resume --state {file} carries it on",
                                ["label": label, "time": Display.stopwatch(nanoseconds: elapsed), "file": statePath]))
            return status
        }
        try? loop.engine.cancel(watch)
        _ = loop.next(timeoutMilliseconds: 0)
        output.finish()
        output.permanent("\(label): \(Display.stopwatch(nanoseconds: elapsed))" + (laps > 0 ? " " + Display.lapCount(laps) : ""))
        return status ?? ExitStatus.finished
    }

    private func saveState() {
        stateFile?.save(loop.engine)
    }

    private func lap() {
        guard let length = try? loop.engine.lap(watch) else { return }
        laps += 1
        saveState()
        let elapsed = (try? loop.engine.elapsed(of: watch))?.nanoseconds ?? 0
        output.permanent(tr("Lap {count}", ["count": String(laps)])
                         + "  \(Display.stopwatch(nanoseconds: length.nanoseconds))  (\(Display.stopwatch(nanoseconds: elapsed)))")
        output.event([
            ("event", .string("lap")), ("label", .string(label)), ("lap", .integer(Int64(laps))),
            ("length", seconds(length.nanoseconds)), ("elapsed", seconds(elapsed)),
        ])
    }

    private func togglePause() {
        if (try? loop.engine.state(of: watch)) == .suspended {
            try? loop.engine.resume(watch)
        } else {
            try? loop.engine.suspend(watch)
        }
    }

    private func startOver() {
        try? loop.engine.cancel(watch)
        try? loop.engine.start(watch)
        laps = 0
    }

    private func redraw() {
        guard output.mode == .live else { return }
        let elapsed = (try? loop.engine.elapsed(of: watch))?.nanoseconds ?? 0
        let paused = (try? loop.engine.state(of: watch)) == .suspended
        output.live([Display.stopwatchLine(label: label, elapsed: elapsed, laps: laps, paused: paused, columns: session.terminal.columns)])
    }

    private func emit(_ kind: String, state: TimerState, elapsed: Int64) {
        output.event([("event", .string(kind)), ("label", .string(label)), ("state", .string(state.description)),
                      ("elapsed", seconds(elapsed))])
    }
}
