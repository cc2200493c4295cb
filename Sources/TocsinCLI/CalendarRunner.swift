import Glibc
package import Tocsin
import TocsinBase
import TocsinNotify

/// `tocsin every SPEC LABEL`: a calendar alarm in the foreground. The live
/// line shows the label, the next ring and the time until it; each ring is
/// a line (a JSON `ring` event with `--json`), the desktop alert and sound,
/// and `--exec`. It rings on until stopped: q or Esc (status 0), Ctrl-C
/// (130), SIGTERM or SIGHUP (143, 129). For an alarm that outlives the
/// terminal, `-b` hands it to the timer service instead.
///
/// `@unchecked Sendable`: everything runs on the command's one thread.
package final class CalendarRunner: AlarmRunner, @unchecked Sendable {
    let spec: CalendarSpec
    let label: String
    let options: CountdownOptions
    let alarmSession: AlarmSession
    private var alarm = TimerID(rawValue: 0)
    private var rings = 0

    package init(spec: CalendarSpec, label: String, options: CountdownOptions) throws(TocsinError) {
        self.spec = spec
        self.label = label
        self.options = options
        alarmSession = try AlarmSession(options: options)
    }

    /// Rings until stopped; the exit status.
    public func run() -> Int32 {
        session.run(ringUntilStopped)
    }

    private func ringUntilStopped() -> Int32 {
        do throws(TocsinError) {
            alarm = try loop.engine.calendar(spec)
            try loop.engine.setLabel(label, for: alarm)
            if options.wake ?? true { try loop.engine.setWake(true, for: alarm) }
            // The live line counts seconds; after a stall, one redraw.
            if output.mode == .live { try loop.engine.setTickInterval(.milliseconds(250), for: alarm) }
            try loop.engine.setTickPolicy(.coalesce, for: alarm)
            try loop.engine.setHandler(for: alarm) { [unowned self] event in handle(event) }
            if let notifier {
                var settings = options.settings
                (settings.live, settings.warning, settings.snooze) = (false, 0, 0)  // a ring only; "+1 min"
                var alert = Alert(settings, summary: label, body: nil)
                alert.standardBody = .calendar(spec: spec.normalized)
                try? notifier.attach(alarm, in: loop.engine, alert: alert)
            }
            try loop.engine.start(alarm)
        } catch {
            return session.refuse(error == .outOfRange ? tr("{spec} has no occurrence left", ["spec": spec.normalized]) : "\(error)")
        }
        var status: Int32?
        while status == nil {
            redraw()
            reports?.drain(to: output) { [label] _ in label }
            for wake in loop.next(timeoutMilliseconds: -1) {
                switch wake {
                case .key(let key) where key == Key.controlC: status = ExitStatus.cancelled
                case .key(let key) where Key.isQuit(key): status = ExitStatus.finished
                case .interrupt(let signal):
                    status = signal == SIGTERM || signal == SIGHUP ? ExitStatus.ended(by: signal) : ExitStatus.cancelled
                default: break
                }
            }
        }
        try? loop.engine.cancel(alarm)
        _ = loop.next(timeoutMilliseconds: 0)
        reports?.drain(to: output) { [label] _ in label }
        output.finish()
        output.permanent(trn("{label}: stopped after {count} ring ({spec})", "{label}: stopped after {count} rings ({spec})", rings,
                             ["label": label, "spec": spec.normalized]))
        return status ?? ExitStatus.finished
    }

    private func handle(_ event: TimerEvent) {
        guard event.kind == .finish else { return }
        rings += 1
        let zone = spec.zoneRules() ?? .utc
        let now = ((try? loop.engine.wallClock())?.nanoseconds ?? Clocks.realtime()) / Nanos.perSecond
        let rang = now - event.lateness.nanoseconds / Nanos.perSecond
        let next = (try? loop.engine.alarmTime(of: alarm))??.nanoseconds ?? 0
        let count = Int(clamping: event.missed)
        let missed = count > 0 ? " (" + trn("{count} missed before it", "{count} missed before it", count) + ")" : ""
        output.permanent("⏰ \(label)  \(Display.wallText(zone, unixSeconds: rang))\(missed)")
        output.event([
            ("event", .string("ring")), ("label", .string(label)), ("calendar", .string(spec.normalized)),
            ("missed", .integer(Int64(clamping: event.missed))), ("lateness", seconds(event.lateness.nanoseconds)),
            ("next", seconds(next)),
        ])
        if let command = options.exec,
           let failure = FinishCommand(command: command).run(label: label, elapsedNanoseconds: event.elapsed.nanoseconds) {
            Descriptor.complain("tocsin: " + tr("--exec '{command}' {failure}", ["command": command, "failure": failure]))
        }
    }

    private func redraw() {
        guard output.mode == .live, let next = (try? loop.engine.alarmTime(of: alarm)) ?? nil,
              let left = (try? loop.engine.remaining(of: alarm)) ?? nil else { return }
        let zone = spec.zoneRules() ?? .utc
        let line = "\(label)  " + tr("next {date}", ["date": Display.wallText(zone, unixSeconds: next.nanoseconds / Nanos.perSecond)])
            + "  " + tr("in {time}", ["time": Display.until(nanoseconds: left.nanoseconds)])
        output.live([Display.fitted(line, columns: session.terminal.columns)])
    }
}
