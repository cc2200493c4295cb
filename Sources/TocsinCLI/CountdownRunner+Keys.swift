import Tocsin

/// The keys of a countdown: space pauses or resumes, r restarts, + and -
/// give or take a minute, q, Esc and Ctrl-C cancel.
extension CountdownRunner {
    func handleKey(_ key: UInt8) {
        let running = active.filter { $0.outcome == nil }
        if Key.isQuit(key) {
            cancelAll()
        } else if key == Key.space {
            for timer in running {
                if (try? loop.engine.state(of: timer.timer)) == .suspended {
                    try? loop.engine.resume(timer.timer)
                } else {
                    try? loop.engine.suspend(timer.timer)
                }
            }
        } else if key == UInt8(ascii: "r") || key == UInt8(ascii: "R") {
            for timer in running {
                try? loop.engine.cancel(timer.timer)
                try? loop.engine.start(timer.timer)
            }
        } else if key == UInt8(ascii: "+") || key == UInt8(ascii: "=") {
            adjustRunning(by: .seconds(60))
        } else if key == UInt8(ascii: "-") || key == UInt8(ascii: "_") {
            for position in active.indices where active[position].outcome == nil {
                takeAMinuteOff(active[position].timer)
            }
            adjustRunning(by: .zero)  // the display's durations
        }
    }

    /// `-`: a minute less; with a minute or less left the countdown finishes
    /// now through its usual FINISH (the alarm). The engine finishes a running
    /// countdown cut to its elapsed time or below but refuses a duration of
    /// zero, so such a cut is to the time elapsed, not by a whole minute.
    private func takeAMinuteOff(_ timer: TimerID) {
        guard var remaining = (try? loop.engine.remaining(of: timer)) ?? nil else { return }
        if remaining <= .seconds(60), (try? loop.engine.state(of: timer)) == .suspended {
            try? loop.engine.resume(timer)  // a suspended countdown is not finished by a cut
            remaining = ((try? loop.engine.remaining(of: timer)) ?? nil) ?? remaining
        }
        guard let duration = (try? loop.engine.duration(of: timer)) ?? nil else { return }
        let cut = remaining <= .seconds(60) ? min(remaining, duration - .nanoseconds(1)) : .seconds(60)
        if cut > .zero { try? loop.engine.adjust(timer, by: .zero - cut) }
    }

    /// `+` and `-`: the running countdowns get `delta` more, and the display
    /// their new durations at once (their STATE events come with the next wake).
    func adjustRunning(by delta: Duration) {
        for position in active.indices where active[position].outcome == nil {
            if delta != .zero { try? loop.engine.adjust(active[position].timer, by: delta) }
            if let duration = (try? loop.engine.duration(of: active[position].timer)) ?? nil {
                active[position].duration = duration.nanoseconds
            }
        }
    }

    func cancelAll() {
        cancelled = true
        for timer in active where timer.outcome == nil {
            try? loop.engine.cancel(timer.timer)
        }
        _ = loop.next(timeoutMilliseconds: 0)  // deliver the STATE(CANCELED) events
    }
}
