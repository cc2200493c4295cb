public import Tocsin
import Glibc
import TocsinBase
package import TocsinNotify

/// What `tocsin DURATION...` does besides counting.
public struct CountdownOptions: Sendable {
    public var json = false
    /// What each alarm shows and plays. In the foreground by default: no
    /// live notification, the sound once, no Snooze ("+1 min").
    package var settings = AlarmSettings.foreground
    public var exec: String?
    /// Runs of the whole plan; 0: forever.
    public var repeatCount = 1
    public var parallel = false
    /// Seconds between JSON tick events.
    public var jsonTick: Duration = .seconds(1)
    /// Keep this timer file current (rewritten on every state change).
    public var statePath: String?
    /// Countdowns count only time the machine is awake (`TimerClock.awake`).
    public var awake = false
    /// Wake the machine from suspend for each timer, where this process may
    /// (nil: for clock times only).
    public var wake: Bool?

    public init() {}
}

extension AlarmSettings {
    /// A foreground timer's alarm unless options say otherwise: no live
    /// notification, the sound once, no Snooze ("+1 min" instead).
    package static var foreground: AlarmSettings {
        var settings = AlarmSettings()
        (settings.live, settings.ring, settings.snooze) = (false, 0, 0)
        return settings
    }
}

/// Runs a plan of countdowns one after another (or side by side), with the
/// live display, keys, desktop alerts, `--exec` and JSON events.
///
/// `@unchecked Sendable`: every method and every timer handler runs on the
/// command's one thread (the engine is polled from `EventLoop`).
public final class CountdownRunner: AlarmRunner, @unchecked Sendable {
    struct Active {
        var timer: TimerID
        var label: String
        var duration: Int64
        var index: Int
        var outcome: TimerState?  // .finished or .canceled once over
        /// Restored from a state file as having run out while no tocsin ran.
        var ranOutAway = false
    }

    let plan: TimerPlan
    let options: CountdownOptions
    let alarmSession: AlarmSession
    /// Where `--state` keeps the timers.
    let stateFile: StateFile?
    var active: [Active] = []
    /// Running time of the finished groups (side by side: the longest).
    var total: Int64 = 0
    var groupTotal: Int64 = 0
    var cancelled = false
    /// The signal (SIGTERM, SIGHUP) that cancelled the timers, for the exit status.
    var cancelledBy: Int32?
    /// SIGTERM or SIGHUP ended the process; the timers run on in the state file.
    var endedBy: Int32?

    public init(plan: TimerPlan, options: CountdownOptions) throws(TocsinError) {
        self.plan = plan
        self.options = options
        alarmSession = try AlarmSession(options: options)
        stateFile = options.statePath.map(StateFile.init(path:))
    }

    /// `--json`: writes the notifier's reports that arrived.
    func writeReports() {
        reports?.drain(to: output) { timer in active.first { $0.timer == timer }?.label }
    }

    /// Carries on the countdowns saved in `options.statePath` by an earlier
    /// `tocsin --state` that was killed or whose machine restarted: running
    /// and suspended ones continue; ones that ran out meanwhile are announced
    /// (how long ago), alerted and `--exec`ed. The exit status.
    public func resume() -> Int32 {
        guard let path = options.statePath else { return ExitStatus.usage }
        let restored: [TimerID]
        do {
            restored = try loop.engine.load(from: path)
        } catch {
            Descriptor.complain("tocsin: " + tr("cannot resume from {file}: {reason}", ["file": path, "reason": StateFile.reason(error, reading: path)]))
            return ExitStatus.failure
        }
        return session.run { carryOn(restored, from: path) }
    }

    private func carryOn(_ restored: [TimerID], from path: String) -> Int32 {
        for timer in restored {
            guard let state = try? loop.engine.state(of: timer), state != .idle, state != .canceled,
                  let duration = (try? loop.engine.duration(of: timer)) ?? nil
            else { continue }
            let label = (try? loop.engine.label(of: timer)) ?? TimerPlan.defaultLabel
            active.append(Active(timer: timer, label: label, duration: duration.nanoseconds, index: active.count,
                                 outcome: state == .finished ? .finished : nil, ranOutAway: state == .finished))
            try? loop.engine.setHandler(for: timer) { [unowned self] event in handle(event) }  // releases a held FINISH
            attachAlert(timer, label: label, duration: duration.nanoseconds)
            if output.mode == .live { try? loop.engine.setTickInterval(.milliseconds(100), for: timer) }
            try? loop.engine.setTickPolicy(.coalesce, for: timer)
        }
        guard !active.isEmpty else {
            output.permanent(tr("Nothing to resume in {file}", ["file": path]))
            return ExitStatus.finished
        }
        _ = loop.next(timeoutMilliseconds: 0)  // FINISH of timers that ran out while away
        runUntilOver()
        total += groupTotal
        return conclude()
    }

    /// The last words and the exit status of a run.
    private func conclude() -> Int32 {
        if let endedBy {
            finalLine()
            return ExitStatus.ended(by: endedBy)
        }
        if !cancelled { waitForAlerts() }
        finalLine()
        return cancelled ? cancelledBy.map(ExitStatus.ended(by:)) ?? ExitStatus.cancelled : ExitStatus.finished
    }

    /// Runs the plan; the exit status.
    public func run() -> Int32 {
        session.run(runPlan)
    }

    private func runPlan() -> Int32 {
        // The user believes the timers are kept: a file that cannot be
        // written is refused before anything starts.
        if let stateFile, let reason = stateFile.write(loop.engine) {
            return session.refuse(tr("cannot write {file}: {reason}; nothing started", ["file": stateFile.path, "reason": reason]))
        }
        var round = 0
        rounds: while options.repeatCount == 0 || round < options.repeatCount {
            round += 1
            let groups = options.parallel ? [Array(plan.entries.indices)] : plan.entries.indices.map { [$0] }
            for group in groups {
                do throws(TocsinError) {
                    for index in group { try start(index) }
                } catch {
                    session.terminal.restore()
                    output.permanent("tocsin: \(error)")
                    return ExitStatus.failure
                }
                runUntilOver()
                total += groupTotal
                groupTotal = 0
                if cancelled || endedBy != nil { break rounds }
            }
        }
        return conclude()
    }

    private func start(_ index: Int) throws(TocsinError) {
        let entry = plan.entries[index]
        let timer: TimerID
        var duration: Int64
        if let wallTime = entry.time.wallTime(after: Glibc.time(nil)) {
            // A clock time is an alarm: it follows the wall clock if that is set.
            timer = try loop.engine.alarm(at: .seconds(wallTime))
            duration = try loop.engine.remaining(of: timer)?.nanoseconds ?? 1
        } else {
            duration = entry.time.nanoseconds()
            timer = try loop.engine.countdown(.nanoseconds(duration))
            if options.awake { try loop.engine.setClock(.awake, for: timer) }
        }
        duration = max(duration, 1)
        try loop.engine.setLabel(entry.label, for: timer)
        let isClockTime = if case .clock = entry.time { true } else { false }
        if options.wake ?? isClockTime { try loop.engine.setWake(true, for: timer) }
        switch output.mode {
        case .live: try loop.engine.setTickInterval(.milliseconds(100), for: timer)
        case .json: try loop.engine.setTickInterval(options.jsonTick, for: timer)
        case .quiet: break
        }
        // After a stall (SIGSTOP, a suspended laptop) one tick, not thousands.
        try loop.engine.setTickPolicy(.coalesce, for: timer)
        try loop.engine.setHandler(for: timer) { [unowned self] event in handle(event) }
        if case .clock(let hour, let minute, let second) = entry.time {
            let shown = Wording.timeOfDay(second == 0 ? [hour, minute] : [hour, minute, second])
            attachAlert(timer, label: entry.label, body: tr("It is {time}", ["time": shown]))
        } else {
            attachAlert(timer, label: entry.label, duration: duration)
        }
        active.append(Active(timer: timer, label: entry.label, duration: duration, index: index))
        try loop.engine.start(timer)
    }

    private func attachAlert(_ timer: TimerID, label: String, duration: Int64) {
        attachAlert(timer, label: label, body: "\(Display.clock(nanoseconds: duration, roundUp: true)) countdown finished")
    }

    private func attachAlert(_ timer: TimerID, label: String, body: String) {
        guard let notifier else { return }
        try? notifier.attach(timer, in: loop.engine, alert: Alert(options.settings, summary: label, body: body))
    }

    /// Rewrites the state file, if one was asked for.
    private func saveState() {
        stateFile?.save(loop.engine)
    }

    /// Delivers events and handles keys until every active timer is over.
    func runUntilOver() {
        redraw()
        while !cancelled && endedBy == nil && active.contains(where: { $0.outcome == nil }) {
            for wake in loop.next(timeoutMilliseconds: -1) {
                switch wake {
                case .key(let key): handleKey(key)
                case .interrupt(let signal) where ExitStatus.keepsTimers(signal, statePath: options.statePath):
                    saveState()  // as they are: running
                    endedBy = signal
                case .interrupt(let signal):
                    if signal == SIGTERM || signal == SIGHUP { cancelledBy = signal }
                    cancelAll()
                case .arrow, .resize, .line, .endOfInput, .timeout: break
                }
            }
            writeReports()
            redraw()
        }
    }

    func handle(_ event: TimerEvent) {
        guard let position = active.firstIndex(where: { $0.timer == event.timer }) else { return }
        let timer = active[position]
        switch event.kind {
        case .tick:
            emit("tick", timer, event, extra: [
                ("tick", .integer(Int64(event.tick))), ("missed", .integer(Int64(clamping: event.missed))),
            ])
        case .stateChange:
            emit("state", timer, event)
            saveState()
            if let duration = (try? loop.engine.duration(of: timer.timer)) ?? nil {  // adjusted: + and -
                active[position].duration = duration.nanoseconds
            }
            // Judge by the state now, not the event's: `r` cancels and starts
            // at once, and the alert's Restart button starts a finished timer.
            switch try? loop.engine.state(of: timer.timer) {
            case .canceled?: active[position].outcome = .canceled
            case .running?, .suspended?: active[position].outcome = nil
            default: break
            }
        case .finish:
            emit("finish", timer, event, extra: [("lateness", seconds(event.lateness.nanoseconds))])
            active[position].outcome = .finished
            groupTotal = options.parallel ? max(groupTotal, timer.duration) : groupTotal + timer.duration
            if timer.ranOutAway {  // its FINISH was held in the file since then
                output.permanent("\(timer.label): finished \(Display.total(nanoseconds: event.lateness.nanoseconds)) ago")
            } else if output.mode == .live {
                output.permanent("✔ \(timer.label)  \(Display.total(nanoseconds: timer.duration))  finished")
            }
            if let command = options.exec,
               let failure = FinishCommand(command: command).run(label: timer.label, elapsedNanoseconds: timer.duration) {
                Descriptor.complain("tocsin: " + tr("--exec '{command}' {failure}", ["command": command, "failure": failure]))
            }
        }
    }

}
