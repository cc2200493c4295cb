import Tocsin
import TocsinBase

/// Skipped rings of calendar alarms (the engine's `skipRings`), saved
/// before they are answered like every change; the upcoming-alarm notice's
/// Skip this one is `skipComingRing`.
extension TimerService {
    /// Skips the next `count` rings of calendar alarm `id`, counted from
    /// its coming one; 0 undoes a skip.
    package func skip(_ id: UInt64, count: UInt32) throws(ServiceError) {
        try changeSkip(id, .skip(count: count, until: nil)) { engine, timer throws(TocsinError) in
            if count == 0 { try engine.clearSkip(timer) } else { try engine.skipRings(timer, count: Int(count)) }
        }
    }

    /// Skips every ring of calendar alarm `id` before `unixSeconds`.
    package func skip(_ id: UInt64, until unixSeconds: Double) throws(ServiceError) {
        try changeSkip(id, .skip(count: nil, until: unixSeconds)) { engine, timer throws(TocsinError) in
            guard unixSeconds.isFinite, let nanoseconds = Nanos.from(seconds: unixSeconds) else { throw .invalidArgument }
            try engine.skipRings(timer, until: .nanoseconds(nanoseconds))
        }
    }

    /// The notice's button: the coming ring of a calendar alarm is skipped,
    /// a one-time alarm (whose only ring it is) cancelled.
    func skipComingRing(_ id: UInt64) throws(ServiceError) {
        if entries[id]?.kind == .calendar { try skip(id, count: 1) } else { try cancel(id) }
    }

    /// A skip's change: a running, idle or paused alarm's STATE event tells
    /// the clients; a cancelled one's time moves without one, so say it here.
    private func changeSkip(_ id: UInt64, _ call: Call,
                            _ body: (TimerEngine, TimerID) throws(TocsinError) -> Void) throws(ServiceError) {
        try change(id, call, body)
        guard let entry = entries[id] else { return }
        notifier?.refresh(entry.timer, in: engine)
        if (try? engine.state(of: entry.timer)) == .canceled { announce([id]) }
    }
}
