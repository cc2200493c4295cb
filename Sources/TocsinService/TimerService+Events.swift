import Tocsin
import TocsinBase
import TocsinNotify

/// What the engine reports: state changes and finishes become signals, a
/// finish starts the timers waiting for it, and one that happened while the
/// service was away is announced late.
extension TimerService {
    func handle(_ event: TimerEvent, of id: UInt64) {
        guard var entry = entries[id] else { return }
        if event.kind != .tick { localeMayChange() }
        switch event.kind {
        case .tick:
            return
        case .stateChange:
            if event.state == .running {  // run again: a finish not yet announced is past
                entry.finishedAt = nil
                entry.announced = true
            }
            entries[id] = entry
            if event.state == .running { noteRunning(id, elapsed: Nanos.seconds(event.elapsed.nanoseconds)) }
            // A call saved its own change before answering: save only what
            // came from elsewhere (the alert's buttons, a chained start).
            if savedStates[id] != event.state { saveAfterEvent([id]) }
            if let properties = properties(of: entry) { afterEventsSaved { [unowned self] in signals.changed(id, properties) } }
        case .finish:
            let lateness = Nanos.seconds(event.lateness.nanoseconds)
            entry.finishedAt = Nanos.seconds(Clocks.realtime()) - lateness
            entry.finishes += 1
            entry.announced = false
            let wasHeld = entry.heldRecord != nil
            entry.heldRecord = nil
            entries[id] = entry
            recordHistory(entry.kind == .calendar ? .ring : .finish, of: id, at: entry.finishedAt,
                          elapsed: Nanos.seconds(event.elapsed.nanoseconds), late: wasHeld ? lateness : nil)
            if wasHeld { attachAlert(entry) }  // held ones had none: it rang while the service was away
            noteScripts(entry.kind == .calendar ? .ring : .finish, of: id, due: entry.finishedAt)  // (as the history names them)
            recordThenAnnounce(id, lateness: lateness, late: wasHeld)
            if entry.kind == .calendar {
                // It rang and runs on: no STATE event says so, this does
                // (its next ring, its finishes, as they are when it is sent),
                // after the Finished.
                afterEventsSaved { [unowned self] in
                    if let entry = entries[id], let properties = properties(of: entry) { signals.changed(id, properties) }
                }
            }
            startWaiting(after: id)
        }
    }

    /// Announces again the finishes recorded but not marked announced (the
    /// service was killed in between): once the service is on the bus.
    func announceUnannounced() {
        let now = Nanos.seconds(Clocks.realtime())
        for (id, entry) in entries.sorted(by: { $0.key < $1.key }) where !entry.announced && entry.heldRecord == nil {
            let lateness = max(0, now - (entry.finishedAt ?? now))
            announce(id, lateness: lateness, late: lateness > grace, again: true)
        }
    }

    /// Tells of timer `id`'s last finish: `Finished` and `FinishAnnounced`,
    /// then, once the bus daemon has routed them (never waiting for it: the
    /// loop goes on), its alert, which replaces the notification recorded
    /// for the timer. It is recorded as announced once the alert is up or
    /// could not be (`noteAnnounced`); until then a restart announces it
    /// again, and the alert's stack tag keeps that to one notification even
    /// where its id was not recorded yet.
    func announce(_ id: UInt64, lateness: Double, late: Bool, again: Bool) {
        guard let entry = entries[id] else { return }
        let label = (try? engine.label(of: entry.timer)) ?? ""
        signals.finished(id, label, lateness)
        signals.finishAnnounced(id, label, lateness, entry.finishes, again)
        let finishes = entry.finishes
        signals.afterSent { [unowned self] in
            // Written in the session's language (asked for at the event).
            afterLocale { [unowned self] in
                // (Gone, or finished again meanwhile: that finish's own announcement shows.)
                guard entries[id]?.finishes == finishes, entries[id]?.announced == false else { return }
                showFinish(id, label: label, lateness: lateness, late: late)
            }
        }
    }

    /// The alert of timer `id`'s last finish (its signals are out).
    private func showFinish(_ id: UInt64, label: String, lateness: Double, late: Bool) {
        guard let entry = entries[id] else { return }
        if entry.settings.popup || entry.settings.sound || entry.settings.media != nil, let notifier {
            // A sleep timer's zero long past (the machine was asleep, the
            // service away): the music playing now was started since.
            let sleptThrough = entry.settings.media != nil && lateness > Nanos.seconds(MediaAction.lateGrace)
            let override = late || sleptThrough ? lateAlert(entry, label: label, lateness: lateness) : nil
            let shows = override?.popup ?? entry.settings.popup
            if notifier.announceFinish(entry.timer, in: engine, override: override, replacing: entry.notification), shows {
                return  // its report marks it announced
            }
        }
        noteAnnounced(id, notification: nil)
    }

    /// Records that timer `id`'s finish has been announced, with the id of
    /// the notification that shows it.
    func noteAnnounced(_ id: UInt64, notification: UInt32?) {
        guard var entry = entries[id], !entry.announced else { return }
        entry.announced = true
        if let notification { entry.notification = notification }
        entries[id] = entry
        saveAfterEvent([id])
        idleMayChange()  // (the last thing that kept it up may have been this finish)
    }

    /// Starts the timers that wait for timer `id` to finish.
    private func startWaiting(after id: UInt64) {
        // (O(n) without a sort when none waits: 1,000 alarms ringing at once.)
        guard entries.values.contains(where: { $0.after == id }) else { return }
        var started: [UInt64] = []
        for (other, entry) in entries.sorted(by: { $0.key < $1.key }) where entry.after == id {
            entries[other]?.after = nil
            try? engine.start(entry.timer)
            noteScripts(.start, of: other)
            started.append(other)
        }
        saveAfterEvent(started)
    }

    /// The alert of a finish announced late (it happened while the service
    /// was away): the alarm if that was within the grace period, else a
    /// quiet one saying when. A sleep timer's acts on the players only
    /// within `MediaAction.lateGrace`, else it says it ran out.
    private func lateAlert(_ entry: Entry, label: String, lateness: Double) -> Alert {
        let summary = label.isEmpty ? nil : label
        if entry.settings.media != nil {
            guard lateness > Nanos.seconds(MediaAction.lateGrace) else {
                return Alert(entry.settings, summary: summary, body: nil)
            }
            return Alert(summary: summary, body: tr("{label} ran out {ago} ago; the players were left as they are",
                                                    ["label": label.isEmpty ? tr("A sleep timer") : label,
                                                     "ago": Wording.roughDuration(Nanos.from(seconds: lateness) ?? 0)]),
                         urgency: .normal, sound: nil, popup: entry.settings.popup, actions: false)
        }
        let sound = entry.settings.sound && lateness <= grace ? Alert.defaultSound : nil
        let ago = Wording.roughDuration(Nanos.from(seconds: lateness) ?? 0)
        if entry.kind == .calendar {  // "Stand-up rang at 09:25, 2 h ago"
            let rang = tr("{label} rang at {time}, {ago} ago", ["label": label.isEmpty ? tr("The alarm") : label,
                          "time": Wording.localTimeOfDay(unixSeconds: Int64(entry.finishedAt ?? 0)), "ago": ago])
            return Alert(summary: summary, body: rang, urgency: lateness <= grace ? .critical : .normal,
                         sound: sound, popup: entry.settings.popup || lateness > grace, actions: false)
        }
        if lateness <= grace {
            return Alert(summary: summary, body: tr("Finished {ago} ago", ["ago": ago]), sound: sound, popup: entry.settings.popup, actions: false)
        }
        return Alert(summary: summary, body: tr("{label} ran out {ago} ago", ["label": label.isEmpty ? tr("A timer") : label, "ago": ago]),
                     urgency: .normal, sound: nil, actions: false)
    }
}
