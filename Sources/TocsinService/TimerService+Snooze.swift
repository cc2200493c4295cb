import Tocsin
import TocsinBase
import TocsinNotify

/// Snooze: a timer that has rung rings again a while from now. A countdown
/// or alarm runs again (an added time, as the engine does it); a calendar
/// alarm, whose times are its spec's, rings once more from a countdown of
/// the service's own, kept in the files as the time it rings at.
extension TimerService {
    /// Snoozes timer `id` for `seconds` (0: its own snooze length), saved
    /// before it returns.
    /// - Throws: `.invalidArgument` for a length outside 1 s to 24 h or a
    ///   stopwatch; `.wrongState` for a timer that has not rung (a calendar
    ///   alarm: one that is not running); `.failed` when it cannot be saved.
    package func snooze(_ id: UInt64, seconds: Double) throws(ServiceError) {
        let entry = try lookUp(id)
        let length = seconds == 0 ? entry.settings.snooze : try Self.snoozeLength(seconds)
        let label = (try? engine.label(of: entry.timer)).flatMap { $0.isEmpty ? nil : $0 } ?? "timer \(id)"
        switch entry.kind {
        case .stopwatch:
            throw ServiceError(.invalidArgument, tr("{label} is a stopwatch: nothing rings to snooze", ["label": label]))
        case .countdown, .alarm:
            guard (try? engine.state(of: entry.timer)) == .finished else { throw explain(.wrongState, of: .snooze, on: entry) }
            try adjust(id, by: Nanos.seconds(length), as: .snooze)
            recordHistory(.snooze, of: id, snooze: Nanos.seconds(length))
            // (Its RUNNING is delivered after this, on this thread: the
            // notification, marked snoozed, stays for the next ring.)
            notifier?.showSnoozed(entry.timer, in: engine, for: length)
        case .calendar:
            guard (try? engine.state(of: entry.timer)) == .running else { throw explain(.wrongState, of: .snooze, on: entry) }
            entries[id]?.snoozedUntil = Nanos.seconds(Clocks.realtime()) + Nanos.seconds(length)
            noteScripts(.snooze, of: id)
            do throws(ServiceError) {
                try save([id])
            } catch {
                entries[id]?.snoozedUntil = entry.snoozedUntil
                entries[id]?.runsDue = entry.runsDue
                throw error
            }
            armSnooze(of: id)
            recordHistory(.snooze, of: id, snooze: Nanos.seconds(length))
            notifier?.showSnoozed(entry.timer, in: engine, for: length)  // this ring is over
            if let properties = properties(of: entries[id] ?? entry) { signals.changed(id, properties) }
        }
    }

    /// Sets the countdown that rings calendar alarm `id` at its
    /// `snoozedUntil` (at once if that has passed).
    func armSnooze(of id: UInt64) {
        endSnooze(of: id)
        guard let entry = entries[id], let until = entry.snoozedUntil else { return }
        let left = max(1, Nanos.from(seconds: max(0, until - Nanos.seconds(Clocks.realtime()))) ?? 1)
        guard let ring = try? engine.countdown(nanoseconds: left) else {
            logLine("cannot arm the snooze of timer \(id)")
            return
        }
        if (try? engine.wakes(entry.timer)) == true { try? engine.setWake(true, for: ring) }
        try? engine.setHandler(for: ring) { [unowned self] event in
            if event.kind == .finish { snoozeRang(id) }
        }
        snoozeRings[id] = ring
        try? engine.start(ring)
    }

    /// Frees the countdown of calendar alarm `id`'s snooze, if any.
    func endSnooze(of id: UInt64) {
        if let ring = snoozeRings.removeValue(forKey: id) { try? engine.free(ring) }
    }

    /// A snoozed calendar alarm's time came: it rings (a finish like its
    /// others, recorded before it is announced).
    private func snoozeRang(_ id: UInt64) {
        endSnooze(of: id)
        guard var entry = entries[id], let until = entry.snoozedUntil else { return }
        let now = Nanos.seconds(Clocks.realtime())
        entry.snoozedUntil = nil
        entry.finishedAt = now
        entry.finishes += 1
        entry.announced = false
        entries[id] = entry
        noteScripts(.ring, of: id, due: until)
        recordHistory(.ring, of: id, at: now)
        recordThenAnnounce(id, lateness: max(0, now - until), late: false)
        if let properties = properties(of: entry) { afterEventsSaved { [unowned self] in signals.changed(id, properties) } }
    }
}

extension TimerService {
    /// A `Snooze` call's length in nanoseconds: 1 s to 24 h (`AlarmSettings`' limits).
    static func snoozeLength(_ seconds: Double) throws(ServiceError) -> Int64 {
        let field = AlarmSettings.Field.snooze
        guard seconds >= 0, case .nanoseconds(let length)? = try? AlarmSettings.value(of: .number(seconds), for: field) else {
            throw ServiceError(.invalidArgument, "snooze must be \(field.limits?.said ?? "shorter"), got \(seconds)")
        }
        return length
    }
}
