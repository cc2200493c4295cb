import Glibc
import TocsinBase

/// The alarm: a finish presented (its alert, sound and buttons), its
/// buttons' actions, a snooze, a ring nobody answered, a dismissal.
extension NotifierCore {
    /// Presents a timer's finish: its alert, with the buttons that fit.
    func presentFinish(_ key: AlertKey, alert: Alert, host: any AlertHost, finish: Bool = false) {
        let label = host.label(of: key.timer)  // allowed on the delivery thread
        // An alarm's time has passed: restarting it would ring at once.
        // A calendar alarm rings and runs on: Stop ends this ring only.
        let reading = host.reading(of: key.timer)
        let isAlarm = reading?.isAlarm ?? false
        let runsOn = reading?.state == .running
        // With a length of its own the alarm's Snooze says it; a calendar
        // alarm has one only where its host can snooze it (the service).
        let snooze = alert.snooze.map { AlertButton.snooze(for: $0.nanoseconds) }
        // A sleep timer's says what it did to the players, and offers nothing.
        let buttons: [AlertButton] = alert.media != nil ? [] : runsOn ? [.stop] + (snooze.map { [$0] } ?? [])
            : isAlarm ? [.stop, snooze ?? .snooze] : [.stop, .restart, snooze ?? .snooze]
        lock.withLock { alarms[key] = AlarmState(ringing: true) }
        present(key, alert: alert, label: label.isEmpty ? tr("Timer") : label, buttons: buttons,
                overtime: alert.live && !runsOn && alert.media == nil, rang: isAlarm, finish: finish)
        if runsOn { glib.run { [self] in awaitNextNotice(key) } }  // (after the alert above)
        // A sleep timer's notification counts no overtime: its live state ends here.
        if alert.media != nil && !runsOn { glib.run { [self] in stopFollowing(key) } }
    }

    /// Presents the finish of a timer attached with `announcedByHost`, once
    /// its host has recorded it: the attached alert, or `override` (a late or
    /// repeated announcement's text), replacing `notification` (the id an
    /// earlier process recorded) if nothing shows for the timer now. Its
    /// `.shown` or `.alertFailed` report has `finish` set. False if the
    /// timer has no alert attached. On the host's delivery thread.
    package func announceFinish(_ key: AlertKey, override: Alert? = nil, replacing notification: UInt32? = nil) -> Bool {
        let attachment = lock.withLock { closed ? nil : attachments[key] }
        guard let attachment else { return false }
        // Urgent, as the alarm after it, so that it comes first.
        if let notification { glib.run(urgent: true) { [self] in presenter.adopt(notification, for: key) } }
        var alert = override ?? attachment.alert
        alert.stackTag = attachment.alert.stackTag
        presentFinish(key, alert: alert, host: attachment.host, finish: true)
        return true
    }

    func present(_ key: AlertKey, alert: Alert, label: String, buttons: [AlertButton],
                         overtime: Bool = false, rang: Bool = false, finish: Bool = false) {
        let chain = alert.soundChain
        lock.withLock { pending += (alert.popup ? 1 : 0) + (chain.isEmpty ? 0 : 1) }
        if alert.popup {
            let content = AlertPresenter.Content(
                summary: alert.summary ?? label, body: alert.body ?? alert.standardBody.text, icon: alert.icon,
                urgency: alert.urgency, suppressSound: !chain.isEmpty, buttons: alert.actions ? buttons : [],
                stackTag: alert.stackTag, isFinishAlert: true)
            if let ring = alert.repeatSound, !chain.isEmpty {
                lock.withLock { alarms[key]?.ring = AlarmState.Ring(content: content, at: Int64(Glibc.time(nil)), length: ring.nanoseconds) }
            }
            let work = UnsafeSendable(content)
            let live = alert.live
            glib.run(urgent: true) { [self] in  // never behind live updates
                var content = work.value
                // A sleep timer acts first; its notification says what it did
                // (instead of any body: "Time is up" would only wake one).
                if let count = mediaAtZero(key, alert), let action = alert.media {
                    content.body = action.outcome(count)
                }
                if following[key] != nil && !live {  // the ring takes the notice's or warning's notification
                    following[key]?.noticeShown = false
                    following[key]?.shownFrame = nil
                }
                switch presenter.show(key, content) {
                case .success(let server):
                    report(.shown, key, "shown by \(server)", nil, notification: presenter.notificationID(of: key),
                           finish: finish)
                    if overtime { countOvertime(key, alarm: content, rang: rang) }
                case .failure(let failure):
                    report(.alertFailed, key, failure.reason, failure, finish: finish)
                }
                finishOne()
            }
        } else {
            glib.run(urgent: true) { [self] in _ = mediaAtZero(key, alert) }
        }
        if !chain.isEmpty {
            let tone = SoundPlayer.Tone(file: alert.soundFile, volume: alert.volume, fade: alert.fade?.nanoseconds ?? 0,
                                        pausesMedia: alert.pausesMedia, description: tr("Timer finished"))
            sound.post(.play(key, chain: chain, role: alert.mediaRole, repeatFor: alert.repeatSound, tone: tone))
        }
    }

    /// Closes a notification an earlier process left showing (by its id on
    /// the server).
    package func closeStray(_ notification: UInt32) {
        glib.run { [self] in presenter.closeStray(notification) }
    }

    /// Withdraws the alert and silences its sound.
    package func withdraw(_ key: AlertKey) {
        lock.withLock { alarms[key] = nil }
        glib.run { [self] in
            stopFollowing(key)
            endMediaFade(key)  // (cancelled, stopped, detached: the players' volume back)
            presenter.close(key)
        }
        sound.post(.stop(key))
    }

    /// A button was pressed; on the GLib thread.
    func perform(_ action: String, on key: AlertKey) {
        guard key != Self.summaryKey else { return }  // it has no buttons; a click does nothing
        let attachment = lock.withLock { attachments[key] }
        var newTimer: TimerID?
        let live = attachment?.alert.live ?? false
        if action.isSame(as: "restart") {
            _ = attachment?.host.perform(.start, on: key.timer)  // its RUNNING withdraws (or replaces) the alert
        } else if action.isSame(as: "snooze") {
            let ringing = lock.withLock { alarms[key]?.ringing == true }
            // The same timer, run again with the snooze's time left: hosts see
            // one timer that got more time, not a new one. On a ringing alarm
            // it is the alert's Snooze (the alert says so until the next
            // ring; a live one shows the new time in place); on a live
            // notification "+1 min".
            let length = ringing ? attachment?.alert.snooze ?? options.snooze : options.snooze
            let seconds = Nanos.seconds(length.nanoseconds)
            if ringing { showSnoozed(key, for: length.nanoseconds) } else if !live { withdraw(key) }
            if let attachment, attachment.host.perform(ringing ? .snooze(seconds: seconds) : .adjust(seconds: seconds), on: key.timer) {
                newTimer = TimerID(rawValue: key.timer)
            } else if ringing {
                withdraw(key)
            }
        } else if action.isSame(as: "pause") {
            _ = attachment?.host.perform(.suspend, on: key.timer)
        } else if action.isSame(as: "resume") {
            _ = attachment?.host.perform(.resume, on: key.timer)
        } else if action.isSame(as: "skip") {
            _ = attachment?.host.perform(.skip, on: key.timer)  // the notice closes as the ring moves away
        } else if action.isSame(as: "cancel") {
            _ = attachment?.host.perform(.cancel, on: key.timer)  // its CANCELED withdraws the alert
        } else {  // "stop", and the default action
            withdraw(key)
        }
        // Show what the button did at once (an adjust sends no state change).
        if attachment?.alert.followsTime == true && !action.isSame(as: "stop") { followTime(key, because: .asked) }
        deliver(NotifierReport(kind: .action, timer: timerID(key), detail: action, error: nil, newTimer: newTimer, host: key.host))
    }

    /// The alarm of `key` was snoozed for `nanoseconds`: its sound stops and,
    /// unless it is live (then its live notification shows the time in
    /// place), its alert says "Snoozed for 5 min" until the next ring
    /// replaces it. Idempotent (the timer service calls it for a snooze
    /// asked by D-Bus, and again for one asked by the button).
    package func showSnoozed(_ key: AlertKey, for nanoseconds: Int64) {
        let attachment = lock.withLock { closed ? nil : attachments[key] }
        let live = attachment?.alert.live ?? false
        lock.withLock { alarms[key] = attachment != nil && !live ? AlarmState(snoozed: true) : nil }
        sound.post(.stop(key))
        guard let attachment, !live, attachment.alert.popup else { return }
        let label = attachment.host.label(of: key.timer)
        let content = AlertPresenter.Content(
            summary: attachment.alert.summary ?? (label.isEmpty ? tr("Timer") : label),
            body: tr("Snoozed for {length}", ["length": Wording.duration(nanoseconds)]), icon: attachment.alert.icon, urgency: .normal,
            suppressSound: true, buttons: [], resident: true, stackTag: attachment.alert.stackTag)
        let work = UnsafeSendable(content)
        glib.run { [self] in
            stopFollowing(key)
            if case .failure(let failure) = presenter.show(key, work.value) { report(.alertFailed, key, failure.reason, failure) }
        }
    }

    /// Shows at once what a change the notifier did not make did to the
    /// timer's live notification (the timer service's `Adjust`, say).
    package func refresh(_ key: AlertKey) {
        glib.run { [self] in
            if following[key] != nil { followTime(key, because: .asked) }
        }
    }

    /// The alarm's sound rang all its ring time and nobody stopped it: its
    /// notification says so ("Rang for 1 min at 07:00, unanswered") and
    /// stays; reported as `.unanswered`. On the sound thread.
    func ringRanOut(_ key: AlertKey) {
        let ring = lock.withLock {
            defer { alarms[key]?.ring = nil }
            return alarms[key]?.ringing == true ? alarms[key]?.ring : nil
        }
        guard let ring else { return }
        let text = tr("Rang for {length} at {time}, unanswered",
                      ["length": Wording.duration(ring.length), "time": Wording.localTimeOfDay(unixSeconds: ring.at)])
        report(.unanswered, key, text, nil)
        var content = ring.content
        content.body = text
        content.urgency = .critical  // stays until dismissed
        let work = UnsafeSendable(content)
        glib.run { [self] in
            stopFollowing(key)  // no more overtime lines over it
            if case .failure(let failure) = presenter.show(key, work.value) { report(.alertFailed, key, failure.reason, failure) }
            awaitNextNotice(key)
        }
    }

    func dismissed(_ key: AlertKey, byUser: Bool) {
        if key == Self.summaryKey { return hushSummary() }
        sound.post(.stop(key))  // a dismissed alert stops ringing
        hushFollowing(key)
        report(.dismissed, key, byUser ? "dismissed by the user" : "closed", nil)
    }
}
