import Tocsin
import TocsinNotify

/// What a countdown shows: the live lines, the wait for the alerts, the
/// final line and the JSON events.
extension CountdownRunner {
    func redraw() {
        guard output.mode == .live else { return }
        let columns = session.terminal.columns
        output.live(active.filter { $0.outcome == nil }.map { timer in
            let remaining = (try? loop.engine.remaining(of: timer.timer)).flatMap { $0 }?.nanoseconds ?? 0
            let paused = (try? loop.engine.state(of: timer.timer)) == .suspended
            return Display.countdownLine(
                label: timer.label, remaining: remaining, duration: timer.duration, paused: paused, columns: columns)
        })
    }

    /// After the last finish: keeps running (display, keys, the alert's
    /// buttons) until the alert is shown and its sound has played, at most
    /// 40 s (a sound server can take 30 s to come back after a resume: the
    /// sound waits for it); any key ends the wait and silences the sound.
    func waitForAlerts() {
        guard let notifier else { return }
        output.finish()
        defer { writeReports() }
        let clock = ContinuousClock()
        // The ring's time, then as long as a sound may wait for its server.
        let deadline = clock.now + .nanoseconds(options.settings.ring) + .seconds(40)
        while clock.now < deadline, !notifier.flush(timeout: .zero) {
            writeReports()
            var stop = false
            for wake in loop.next(timeoutMilliseconds: 100) {
                if case .key = wake { stop = true }
                if case .interrupt = wake { stop = true }
            }
            if active.contains(where: { $0.outcome == nil }) {  // Restart pressed on the alert
                runUntilOver()
                if cancelled { return }
                continue
            }
            if stop {
                for timer in active { notifier.stop(timer.timer, in: loop.engine) }
                break
            }
        }
    }

    /// The one line a script sees (not in JSON mode).
    func finalLine() {
        let labels = active.map(\.label).reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
        let name = labels.joined(separator: ", ")
        if endedBy != nil, let path = options.statePath {
            let unfinished = active.first { $0.outcome == nil }
            let left = unfinished.flatMap { timer in (try? loop.engine.remaining(of: timer.timer)) ?? nil }?.nanoseconds ?? 0
            output.finish()
            output.permanent(tr("{label}: still running, {time} left; tocsin resume --state {file} carries it on",
                                ["label": name, "time": Display.clock(nanoseconds: left, roundUp: true), "file": path]))
        } else if cancelled {
            let unfinished = active.first { $0.outcome != .finished }
            let left = unfinished.flatMap { timer in (try? loop.engine.remaining(of: timer.timer)) ?? nil }?.nanoseconds ?? 0
            output.finish()
            output.permanent(tr("{label}: cancelled with {time} left", ["label": name, "time": Display.clock(nanoseconds: left, roundUp: true)]))
        } else if output.mode != .live {
            output.permanent(tr("{label}: finished after {time}", ["label": name, "time": Display.total(nanoseconds: total)]))
        }
    }

    func emit(_ kind: String, _ timer: Active, _ event: TimerEvent, extra: [(String, JSON)] = []) {
        output.event([
            ("event", .string(kind)), ("label", .string(timer.label)), ("index", .integer(Int64(timer.index))),
            ("state", .string(event.state.description)), ("elapsed", seconds(event.elapsed.nanoseconds)),
            ("remaining", seconds(event.remaining?.nanoseconds)),
        ] + extra)
    }
}
