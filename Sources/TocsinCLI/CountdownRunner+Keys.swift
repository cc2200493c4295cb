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
            adjustRunning(by: .seconds(-60))  // with a minute or less left it finishes now
        }
    }

    /// `+` and `-`: the running countdowns get `delta` more, and the display
    /// their new durations at once (their STATE events come with the next wake).
    func adjustRunning(by delta: Duration) {
        for position in active.indices where active[position].outcome == nil {
            try? loop.engine.adjust(active[position].timer, by: delta)
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
