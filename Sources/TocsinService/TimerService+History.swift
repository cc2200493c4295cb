import Tocsin
import TocsinBase

/// The history (`HistoryLog`, docs/history.md): a line for each finish,
/// ring, snooze, cancel and stopwatch stop, written after the change it
/// tells of is made (a call's: once it is saved), never a reason to refuse
/// one. Starts, pauses, resumes, adjusts, laps and restarts are not lines:
/// the start and the running time are in the line that ends the run.
extension TimerService {
    /// Notes a timer's state event for the history: when it started (a
    /// resume keeps the start it had; a restart began a new run).
    func noteRunning(_ id: UInt64, elapsed: Double) {
        guard var entry = entries[id] else { return }
        if elapsed + 0.001 < entry.historyElapsed {  // started over (Restart)
            entry.historyElapsed = 0
            entry.startedAt = nil
        }
        // Only a start seen as it happens: a timer found running at a
        // restart of the service has no known start (its pauses are not kept).
        if entry.startedAt == nil, elapsed - entry.historyElapsed < 1 {
            entry.startedAt = Nanos.seconds(Clocks.realtime()) - max(0, elapsed - entry.historyElapsed)
        }
        entries[id] = entry
    }

    /// Appends a line for `event` of timer `id`, which ran `elapsed` seconds
    /// in all (nil: asked of the engine). A finish, cancel or stop ends the
    /// run: the next line's duration and start are counted from here.
    func recordHistory(_ event: HistoryRecord.Event, of id: UInt64, at: Double? = nil, elapsed: Double? = nil,
                       snooze: Double? = nil, late: Double? = nil) {
        guard let entry = entries[id] else { return }
        entries[id] = recordHistory(event, of: entry, at: at, elapsed: elapsed, snooze: snooze, late: late)
    }

    /// `recordHistory` for `entry` (one the service may have let go of
    /// already); returns it as the next line counts from.
    @discardableResult
    func recordHistory(_ event: HistoryRecord.Event, of entry: Entry, at: Double? = nil, elapsed: Double? = nil,
                       snooze: Double? = nil, late: Double? = nil) -> Entry {
        guard let history else { return entry }
        let timed = entry.kind != .calendar && event != .snooze
        let ran = elapsed ?? (try? engine.elapsed(of: entry.timer)).map { Nanos.seconds($0.nanoseconds) } ?? 0
        history.append(HistoryRecord(
            at: at ?? Nanos.seconds(Clocks.realtime()), event: event, id: entry.id, label: (try? engine.label(of: entry.timer)) ?? "",
            kind: entry.kind.rawValue, duration: timed ? max(0, ran - entry.historyElapsed) : nil,
            started: timed ? entry.startedAt : nil, snooze: snooze, late: late, owner: entry.owner))
        guard event != .snooze else { return entry }
        var ended = entry
        ended.startedAt = nil
        ended.historyElapsed = timed ? ran : 0
        return ended
    }

    /// The line of a cancel: `stop` for a stopwatch.
    func cancelEvent(of entry: Entry) -> HistoryRecord.Event {
        entry.kind == .stopwatch ? .stop : .cancel
    }

    /// True while timer `id` runs or is paused (a removal then ends a run).
    func isUnderWay(_ id: UInt64) -> Bool {
        guard let entry = entries[id], let state = try? engine.state(of: entry.timer) else { return false }
        return state == .running || state == .suspended
    }
}
