import CGio
import Tocsin
import TocsinNotify

/// The notifier's side: each timer's alert (attached when the timer is
/// adopted), its buttons routed to the matching call on the service's
/// thread, and a notification when such a change cannot be saved.
extension TimerService {
    /// Registers `entry`: its handler, and its alert unless it was
    /// restored as already having run out.
    func adopt(_ entry: Entry) {
        entries[entry.id] = entry
        idsByHandle[entry.timer.rawValue] = entry.id
        let id = entry.id
        if entry.heldRecord == nil { attachAlert(entry) }
        // No ticks: nothing of the service hears them (a record from before
        // 0.9 may carry any interval, down to 1 ns).
        try? engine.setTickInterval(nanoseconds: 0, for: entry.timer)
        try? engine.setEventKinds([.stateChange, .finish], for: entry.timer)
        try? engine.setHandler(for: entry.timer) { [unowned self] event in handle(event, of: id) }
    }

    /// Shows `entry`'s alert at each of its finishes from now on.
    func attachAlert(_ entry: Entry) {
        if entry.settings.popup || entry.settings.sound || entry.settings.media != nil, let notifier {
            let label = (try? engine.label(of: entry.timer)) ?? ""
            var alert = Alert(entry.settings, summary: label, body: nil)
            // Written when shown, in the session's language of that moment.
            alert.standardBody = switch entry.kind {
            case .alarm: .alarm
            case .calendar: .calendar(spec: (try? engine.calendarSpec(of: entry.timer))??.normalized ?? "")
            case .countdown, .stopwatch: .timeIsUp
            }
            // The service records each finish before its alert is shown
            // (`announce`); the tag is the timer's for as long as it exists.
            alert.announcedByHost = true
            alert.stackTag = "dev.tocsin.timer.\(entry.id)"
            // The buttons act through the service, which records each change.
            // (The service outlives its notifier: closed first at exit.)
            try? notifier.attach(entry.timer, in: engine, alert: alert, router: { [unowned self] timer, action in
                Self.onMainLoop { [unowned self] in perform(action, on: timer) }
                return true
            }, notification: entry.notification)
        }
    }

    /// A button of a timer's notification, as the matching call. A change
    /// that cannot be saved is not made, and a notification says so.
    private func perform(_ action: HostAction, on timer: TimerID) {
        guard let id = idsByHandle[timer.rawValue] else { return }
        do throws(ServiceError) {
            switch action {
            case .start: try restart(id)
            case .suspend: try pause(id)
            case .resume: try resume(id)
            case .cancel: try cancel(id)
            case .adjust(let seconds): try adjust(id, by: seconds)
            case .snooze(let seconds): try snooze(id, seconds: seconds)
            case .skip: try skipComingRing(id)
            }
        } catch where error.kind == .failed {
            let label = entries[id].flatMap { try? engine.label(of: $0.timer) } ?? ""
            // TRANSLATORS: the {action} of "Could not {action}: {reason}".
            let verb = switch action {
            case .start: tr("restart")
            case .suspend: tr("pause")
            case .resume: tr("resume")
            case .cancel: tr("cancel")
            case .adjust: tr("adjust")
            case .snooze: tr("snooze")
            case .skip: tr("skip")
            }
            notifier?.show(Alert(summary: label.isEmpty ? "Tocsin" : label, body: tr("Could not {action}: {reason}", ["action": verb, "reason": error.message]),
                                 urgency: .normal, sound: nil, actions: false))
        } catch {}  // a button left from an earlier state: nothing to do
    }

    /// Runs `work` on the service's thread (the default main context), soon.
    static func onMainLoop(_ work: @escaping @Sendable () -> Void) {
        let box = Unmanaged.passRetained(MainLoopWork(work)).toOpaque()
        g_main_context_invoke_full(nil, G_PRIORITY_DEFAULT, { raw in
            Unmanaged<MainLoopWork>.fromOpaque(raw.unsafelyUnwrapped).takeRetainedValue().work()
            return 0  // G_SOURCE_REMOVE
        }, box, nil)
    }
}

private final class MainLoopWork: Sendable {
    let work: @Sendable () -> Void
    init(_ work: @escaping @Sendable () -> Void) { self.work = work }
}

extension TimerService {
    /// Nanoseconds until the notifier next writes a text that no event of
    /// the engine comes before (an alarm's upcoming-alarm notice, a
    /// warning before zero), of those more than `after` away; nil if none.
    /// The service reads the session's locale just before it
    /// (`SessionLocale.planLook`). O(n) in the timers with a notice or a
    /// warning.
    func nextUnpromptedText(after: Int64) -> Int64? {
        guard notifier != nil else { return nil }
        let watched = entries.values.filter { $0.settings.popup && ($0.settings.notice > 0 || $0.settings.warning > 0) }
        guard !watched.isEmpty, let readings = try? engine.readings(of: watched.map(\.timer)) else { return nil }
        var soonest: Int64?
        for (entry, reading) in zip(watched, readings) {
            guard let reading, reading.state == .running, let remaining = reading.remaining else { continue }
            let isAlarm = entry.kind == .alarm || entry.kind == .calendar
            for lead in [isAlarm ? entry.settings.notice : 0, entry.settings.warning] where lead > 0 {
                let due = remaining - lead
                if due > after { soonest = min(soonest ?? due, due) }
            }
        }
        return soonest
    }
}
