import Tocsin
import TocsinBase
import TocsinNotify

/// What the engine reports: state changes and finishes become signals, a
/// finish starts the timers waiting for it, and one that happened while the
/// service was away is announced late.
extension TimerService {
    func handle(_ event: TimerEvent, of id: UInt64) {
        guard var entry = entries[id] else { return }
        switch event.kind {
        case .tick:
            return
        case .stateChange:
            if event.state == .running { entry.finishedAt = nil }
            entries[id] = entry
            // A call saved its own change before answering: save only what
            // came from elsewhere (the alert's buttons, a chained start).
            if savedStates[id] != event.state { saveAfterEvent([id]) }
            if let properties = properties(of: entry) { signals.changed(id, properties) }
        case .finish:
            let lateness = Nanos.seconds(event.lateness.nanoseconds)
            entry.finishedAt = Nanos.seconds(Clocks.realtime()) - lateness
            let wasHeld = entry.heldRecord != nil
            entry.heldRecord = nil
            entries[id] = entry
            // Before announcing: a finish is never announced twice. (If it
            // cannot be written, it is announced all the same: a ring missed
            // is worse than one repeated after a crash.)
            saveAfterEvent([id])
            signals.finished(id, (try? engine.label(of: entry.timer)) ?? "", lateness)
            if wasHeld { announceLate(entry, lateness: lateness) }
            // A calendar alarm rings on: its next rings get the alert.
            if wasHeld, event.state == .running { attachAlert(entry) }
            startWaiting(after: id)
        }
    }

    /// Starts the timers that wait for timer `id` to finish.
    private func startWaiting(after id: UInt64) {
        var started: [UInt64] = []
        for (other, entry) in entries.sorted(by: { $0.key < $1.key }) where entry.after == id {
            entries[other]?.after = nil
            try? engine.start(entry.timer)
            started.append(other)
        }
        saveAfterEvent(started)
    }

    /// A timer that ran out while the service was away: the alarm if that
    /// was within the grace period, else one quiet alert saying when.
    private func announceLate(_ entry: Entry, lateness: Double) {
        guard let notifier, entry.alert || entry.sound else { return }
        if let stray = entry.notification { notifier.core.closeStray(stray) }  // its live one, from before
        let label = (try? engine.label(of: entry.timer)) ?? ""
        if entry.kind == .calendar {  // "Stand-up rang at 09:25, 2 h ago"
            let rang = "\(label.isEmpty ? "The alarm" : label) rang at \(Self.timeOfDay(entry.finishedAt ?? 0)), \(Self.ago(lateness)) ago"
            let sound = entry.sound && lateness <= grace ? Alert.defaultSound : nil
            notifier.show(Alert(summary: label, body: rang, urgency: lateness <= grace ? .critical : .normal,
                                sound: sound, popup: entry.alert || lateness > grace, actions: false))
            return
        }
        if lateness <= grace {
            notifier.show(Alert(summary: label, body: "Finished \(Self.ago(lateness)) ago",
                                sound: entry.sound ? Alert.defaultSound : nil, popup: entry.alert, actions: false))
        } else {
            notifier.show(Alert(summary: label, body: "\(label.isEmpty ? "A timer" : label) ran out \(Self.ago(lateness)) ago",
                                urgency: .normal, sound: nil, actions: false))
        }
    }

    /// "09:25": a Unix time's local time of day.
    static func timeOfDay(_ unixSeconds: Double) -> String {
        let seconds = Int64(unixSeconds)
        let local = seconds + Int64(ZoneRules.local().offset(at: seconds))
        let minutes = Int(((local % 86400) + 86400) % 86400 / 60)
        let hour = minutes / 60, minute = minutes % 60
        return (hour < 10 ? "0" : "") + "\(hour):" + (minute < 10 ? "0" : "") + "\(minute)"
    }

    /// "3 h", "12 min", "40 s".
    static func ago(_ seconds: Double) -> String {
        if seconds >= 3600 { return "\(Int(seconds / 3600)) h" }
        if seconds >= 60 { return "\(Int(seconds / 60)) min" }
        return "\(Int(seconds)) s"
    }
}
