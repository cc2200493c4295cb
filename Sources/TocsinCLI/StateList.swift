public import Tocsin
import Synchronization

/// `tocsin list --state FILE`: the timers a `tocsin --state FILE` keeps,
/// as they are now (time away counted), without running them.
public enum StateList {
    /// One line per timer: label, state, time left or elapsed; nil if the
    /// file cannot be read (with the reason).
    public static func lines(path: String) -> Result<[String], TocsinError> {
        do {
            let engine = try TimerEngine(delivery: .manualClock)
            defer { engine.close() }
            let timers = try engine.load(from: path)
            let ranOut = Mutex<[TimerID: Int64]>([:])
            _ = try engine.addObserver { event in
                if event.kind == .finish { ranOut.withLock { $0[event.timer] = event.lateness.nanoseconds } }
            }
            for timer in timers {  // a held FINISH says how long ago a timer ran out
                try engine.setHandler(for: timer) { _ in }
            }
            try engine.advance(by: .zero)
            let finishedAgo = ranOut.withLock { $0 }
            let width = max(5, timers.map { ((try? engine.label(of: $0)) ?? "").count }.max() ?? 5)
            return .success(try timers.map { timer throws(TocsinError) in
                let label = try engine.label(of: timer)
                let state = try engine.state(of: timer)
                let detail: String
                if let remaining = try engine.remaining(of: timer) {
                    if let ago = finishedAgo[timer] {
                        detail = "ran out \(Display.total(nanoseconds: ago)) ago"
                    } else {
                        detail = state == .finished ? "done" : "\(Display.clock(nanoseconds: remaining.nanoseconds, roundUp: true)) left"
                    }
                } else {
                    detail = "\(Display.stopwatch(nanoseconds: try engine.elapsed(of: timer).nanoseconds)) elapsed"
                }
                let name = (label.isEmpty ? "-" : label).padding(to: width)
                return "\(name)  \(Display.state(state.description).padding(to: 9))  \(detail)"
            })
        } catch {
            return .failure(error)
        }
    }
}

extension String {
    func padding(to width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}
