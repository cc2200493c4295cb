public import Tocsin
import TocsinBase

/// `tocsin watch [TIMER]`: the live display attached to timers that run
/// elsewhere (the timer service). It only shows them and passes keys on to
/// the selected one (marked ▸ when there are several; the one that ends
/// soonest at first; ↑/↓, k/j or Tab choose another): space pauses or
/// resumes, `+`/`-` give or take a minute, `c` cancels; q, Esc, Ctrl-C and
/// signals detach, and the timers keep running. The source of the timers is
/// given as closures, so this knows no bus.
public final class WatchRunner {
    /// A timer as the display needs it.
    public struct Watched: Sendable {
        public var id: UInt64
        public var label: String
        public var state: TimerState?
        /// Seconds; nil for a stopwatch.
        public var remaining: Double?
        public var duration: Double?
        public var elapsed: Double

        public init(id: UInt64, label: String, state: TimerState?, remaining: Double?, duration: Double?, elapsed: Double) {
            (self.id, self.label, self.state) = (id, label, state)
            (self.remaining, self.duration, self.elapsed) = (remaining, duration, elapsed)
        }

        var isLive: Bool { state == .running || state == .suspended }
    }

    private let timers: () -> [Watched]?
    private let control: (String, UInt64, Double?) -> Void
    private let only: UInt64?
    /// The timer the keys act on.
    private var selected: UInt64?

    /// `timers` lists them (nil: the source is gone); `control(method, id,
    /// delta)` acts on one; `only`: watch just that timer.
    public init(only: UInt64?, timers: @escaping () -> [Watched]?, control: @escaping (String, UInt64, Double?) -> Void) {
        self.only = only
        self.timers = timers
        self.control = control
    }

    /// Runs until detached or nothing is left to watch; the exit status.
    public func run() -> Int32 {
        let session: TerminalSession
        do {
            session = try TerminalSession(json: false, readInput: true)
        } catch {
            Descriptor.complain("tocsin: \(error)")
            return ExitStatus.failure
        }
        return session.run { watch(session) }
    }

    private func watch(_ session: TerminalSession) -> Int32 {
        var watched = shown(on: session.output)
        while let current = watched, !current.isEmpty {
            select(in: current)
            let columns = session.terminal.columns
            session.output.live(current.map {
                line($0, mark: current.count < 2 ? "" : ($0.id == selected ? "▸ " : "  ") + "\($0.id)  ", columns: columns)
            })
            for wake in session.loop.next(timeoutMilliseconds: 100) {
                switch wake {
                case .interrupt, .endOfInput: return ExitStatus.finished  // detach
                case .key(let key) where Key.isQuit(key): return ExitStatus.finished
                case .key(let key): press(key, on: current)
                case .arrow(let step): move(step, in: current)
                case .line, .resize, .timeout: break
                }
            }
            watched = shown(on: session.output)
        }
        if watched == nil {
            session.output.finish()
            session.output.permanent("tocsin: " + tr("the timer service went away"))
            return ExitStatus.failure
        }
        return ExitStatus.finished
    }

    /// The timers to show now: the one asked for (until it is over), or
    /// every running or suspended one.
    private func shown(on output: Output) -> [Watched]? {
        guard let all = timers() else { return nil }
        if let only {
            guard let timer = all.first(where: { $0.id == only }) else { return [] }
            if !timer.isLive {
                output.finish()
                output.permanent("\(timer.label): \(timer.state?.description ?? "?")")
                return []
            }
            return [timer]
        }
        return all.filter(\.isLive)
    }

    /// Keeps the selection on a timer still shown; else the one that ends
    /// soonest (countdowns before stopwatches).
    private func select(in watched: [Watched]) {
        if let selected, watched.contains(where: { $0.id == selected }) { return }
        selected = watched.min { ($0.remaining ?? .infinity) < ($1.remaining ?? .infinity) }?.id
    }

    /// `-`: a minute off; with a minute or less left (as last listed), all
    /// of it, so a running countdown finishes now: the service finishes one
    /// cut to its elapsed time, and refuses a duration of 0.
    static func minuteOff(_ timer: Watched) -> Double {
        guard let remaining = timer.remaining, remaining <= 60, let duration = timer.duration else { return 60 }
        return max(0, min(remaining, duration - 0.001))
    }

    private func move(_ step: Int, in watched: [Watched]) {
        guard let index = watched.firstIndex(where: { $0.id == selected }) else { return }
        selected = watched[(index + step + watched.count) % watched.count].id
    }

    private func press(_ key: UInt8, on watched: [Watched]) {
        switch key {
        case Key.tab, UInt8(ascii: "j"): return move(1, in: watched)
        case UInt8(ascii: "k"): return move(-1, in: watched)
        default: break
        }
        for timer in watched where timer.id == selected {
            switch key {
            case Key.space: control(timer.state == .suspended ? "Resume" : "Pause", timer.id, nil)
            case UInt8(ascii: "+"), UInt8(ascii: "="): control("Adjust", timer.id, 60)
            case UInt8(ascii: "-"), UInt8(ascii: "_"): control("Adjust", timer.id, -Self.minuteOff(timer))
            case UInt8(ascii: "c"), UInt8(ascii: "C"): control("Cancel", timer.id, nil)
            default: break
            }
        }
    }

    /// One timer's line after `mark` (of several: the selected one's ▸, and
    /// each one's id, as `tocsin ls` and the controls name it, so that
    /// timers of one label can be told apart).
    private func line(_ timer: Watched, mark: String, columns: Int) -> String {
        let paused = timer.state == .suspended
        let columns = columns - mark.count
        let text = if let remaining = timer.remaining, let duration = timer.duration {
            Display.countdownLine(label: timer.label, remaining: Nanos.saturating(seconds: remaining),
                                  duration: Nanos.saturating(seconds: duration), paused: paused, columns: columns)
        } else {
            Display.stopwatchLine(label: timer.label, elapsed: Nanos.saturating(seconds: timer.elapsed), laps: 0,
                                  paused: paused, columns: columns)
        }
        return mark + text
    }
}
