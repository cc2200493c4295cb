package import TocsinBase
import Glibc

/// Everything of a `Notifier`: its state, its two threads, and what they
/// call back. The closures it hands those threads, GLib and the engines'
/// observers hold it strongly (Embedded Swift, in which libtocsin-notify.so
/// is built, has no weak references): `close()` breaks those cycles (it
/// stops the observers, cancels the live timeouts, drops the sound thread's
/// and the presenter's callbacks and stops both threads), and the
/// `Notifier` facade closes it when it goes.
///
/// `@unchecked Sendable`: mutable state is guarded by `lock`; the presenter
/// and `following` are touched only on the GLib thread.
package final class NotifierCore: @unchecked Sendable {
    typealias Options = Notifier.Options

    struct Attachment {
        var alert: Alert
        var host: any AlertHost
    }

    let options: Options
    let glib: GLibThread
    private(set) var sound: SoundPlayer!
    /// GLib thread only.
    private(set) var presenter: AlertPresenter!
    /// GLib thread only.
    let media = MediaPauser()
    /// The timers whose time is followed (live or warned), and the beat
    /// and summary of the live ones; GLib thread only.
    var following: [AlertKey: Following] = [:]
    var board = LiveBoard()
    /// How many live notifications show at once (`Options.liveLimit`,
    /// `setLiveLimit`); GLib thread only.
    var liveLimit: Int
    package let lock = TocsinLock()
    // Guarded by `lock`:
    var attachments: [AlertKey: Attachment] = [:]
    package var hosts: [ObjectIdentifier: any AlertHost] = [:]
    var reportHandler: (@Sendable (NotifierReport) -> Void)?
    /// `Notifier.setSummaryHandler`'s (under `lock`).
    var summaryHandler: (@Sendable (UInt32?) -> Void)?
    /// `Notifier.setFinishAlertsHandler`'s (under `lock`).
    var finishAlertsHandler: (@Sendable (Int) -> Void)?
    var loggedReasons: [String] = []
    var pending = 0
    var closed = false
    /// The timers whose alarm is up or snoozed (one table: each table
    /// type costs the Embedded library kilobytes).
    var alarms: [AlertKey: AlarmState] = [:]
    private var nextStandalone: UInt64 = 1

    init(options: Options) throws(TocsinError) {
        self.options = options
        liveLimit = max(0, options.liveLimit)
        do {
            glib = try GLibThread()
        } catch {
            throw .io
        }
        let report: SoundPlayer.Reporter = { [self] kind, key, detail, failure in
            self.report(kind, key, detail, failure)
        }
        do {
            sound = try SoundPlayer(report: report, done: { [self] _ in finishOne() },
                                    ranOut: { [self] key in ringRanOut(key) },
                                    media: { [self] key, started in glib.run { [self] in media.ring(key, started: started) } })
        } catch {
            glib.stop()
            throw .io
        }
        let presenter = AlertPresenter(
            onAction: { [self] key, action in perform(action, on: key) },
            onClosed: { [self] key, byUser in dismissed(key, byUser: byUser) },
            onFinishAlerts: { [self] count in
                lock.lock()
                let handler = finishAlertsHandler
                lock.unlock()
                handler?(count)
            })
        self.presenter = presenter
    }

    func setReportHandler(_ handler: (@Sendable (NotifierReport) -> Void)?) {
        lock.lock()
        reportHandler = handler
        lock.unlock()
    }

    func setSummaryHandler(_ handler: (@Sendable (UInt32?) -> Void)?) {
        lock.lock()
        summaryHandler = handler
        lock.unlock()
    }

    func setFinishAlertsHandler(_ handler: (@Sendable (Int) -> Void)?) {
        lock.lock()
        finishAlertsHandler = handler
        lock.unlock()
    }

    // MARK: - Attaching

    /// Silences and dismisses an alert (what the Stop button does); false
    /// if the timer has no alert attached.
    package func stop(_ key: AlertKey) -> Bool {
        lock.lock()
        let attached = attachments[key] != nil
        lock.unlock()
        if attached { withdraw(key) }
        return attached
    }

    /// `notification`: the server id of this timer's notification shown by
    /// an earlier process, replaced by the first one shown now.
    package func attach(_ timer: UInt64, host: any AlertHost, alert: Alert, notification: UInt32? = nil) throws(TocsinError) {
        lock.lock()
        defer { lock.unlock() }
        guard !closed else { throw .closed }
        let hostID = host.hostID
        let key = AlertKey(host: hostID, timer: timer)
        let firstOfHost = !attachments.keys.contains { $0.host == hostID }
        if firstOfHost {
            // By the host's id, not the host: the engine holds this closure,
            // and the host holds the engine.
            let observing = host.observe { [self] timer, event in
                hostEvent(event, timer: timer, host: hostID)
            }
            guard observing else { throw .closed }
        }
        attachments[key] = Attachment(alert: alert, host: host)
        hosts[hostID] = host
        if let notification { glib.run { [self] in presenter.adopt(notification, for: key) } }
        // A timer already running is shown (and its warning awaited) at once.
        if alert.followsTime { glib.run { [self] in followTime(key, because: .attached) } }
    }

    /// Stops alerting for `key`; false if it was not attached.
    @discardableResult
    package func detach(_ key: AlertKey) -> Bool {
        lock.lock()
        let removed = attachments.removeValue(forKey: key)
        let lastOfHost = removed != nil && !attachments.keys.contains { $0.host == key.host }
        let idleHost = lastOfHost ? key.host.flatMap { hosts.removeValue(forKey: $0) } : nil
        lock.unlock()
        // Outside the lock: stopping waits for a running observer, which takes the lock.
        idleHost?.stopObserving()
        if removed != nil { withdraw(key) }
        return removed != nil
    }

    /// Detaches every timer of one host (its engine is about to go).
    package func forgetHost(_ hostID: ObjectIdentifier) {
        lock.lock()
        let keys = attachments.keys.filter { $0.host == hostID }
        lock.unlock()
        for key in keys { detach(key) }
        lock.lock()
        let host = hosts.removeValue(forKey: hostID)
        lock.unlock()
        host?.stopObserving()
    }

    // MARK: - Showing

    func show(_ alert: Alert) {
        guard !isClosed else { return }
        lock.lock()
        let key = AlertKey(host: nil, timer: nextStandalone)
        nextStandalone += 1
        lock.unlock()
        present(key, alert: alert, label: "Tocsin", buttons: [.stop])
    }

    /// A timer of an attached engine changed; on the engine's delivery thread.
    private func hostEvent(_ event: HostEvent, timer: UInt64, host hostID: ObjectIdentifier) {
        let key = AlertKey(host: hostID, timer: timer)
        lock.lock()
        let attachment = closed ? nil : attachments[key]
        lock.unlock()
        guard let attachment else { return }
        let alert = attachment.alert
        let host = attachment.host
        switch event {
        case .finished where !alert.announcedByHost:
            presentFinish(key, alert: alert, host: host)
        case .finished:
            break  // the host calls `announceFinish` once it has recorded it
        case .running where alert.followsTime, .suspended where alert.followsTime:
            lock.lock()
            alarms[key] = nil  // run again: its live notification takes over
            lock.unlock()
            if event == .running { sound.post(.stop(key)) }
            glib.run { [self] in followTime(key, because: .changed(event)) }
        case .running:
            lock.lock()
            let keep = alarms[key]?.snoozed == true  // it says "Snoozed" until the next ring replaces it
            lock.unlock()
            if !keep { withdraw(key) }
        case .canceled:
            withdraw(key)
        case .suspended:
            break
        }
    }

    /// Presents a timer's finish: its alert, with the buttons that fit.
    private func presentFinish(_ key: AlertKey, alert: Alert, host: any AlertHost, finish: Bool = false) {
        let label = host.label(of: key.timer)  // allowed on the delivery thread
        // An alarm's time has passed: restarting it would ring at once.
        // A calendar alarm rings and runs on: Stop ends this ring only.
        let reading = host.reading(of: key.timer)
        let isAlarm = reading?.isAlarm ?? false
        let runsOn = reading?.state == .running
        // With a length of its own the alarm's Snooze says it; a calendar
        // alarm has one only where its host can snooze it (the service).
        let snooze = alert.snooze.map { AlertButton.snooze(for: $0.nanoseconds) }
        let buttons: [AlertButton] = runsOn ? [.stop] + (snooze.map { [$0] } ?? [])
            : isAlarm ? [.stop, snooze ?? .snooze] : [.stop, .restart, snooze ?? .snooze]
        lock.lock()
        alarms[key] = AlarmState(ringing: true)
        lock.unlock()
        present(key, alert: alert, label: label.isEmpty ? "Timer" : label, buttons: buttons,
                overtime: alert.live && !runsOn, rang: isAlarm, finish: finish)
    }

    /// Presents the finish of a timer attached with `announcedByHost`, once
    /// its host has recorded it: the attached alert, or `override` (a late or
    /// repeated announcement's text), replacing `notification` (the id an
    /// earlier process recorded) if nothing shows for the timer now. Its
    /// `.shown` or `.alertFailed` report has `finish` set. False if the
    /// timer has no alert attached. On the host's delivery thread.
    package func announceFinish(_ key: AlertKey, override: Alert? = nil, replacing notification: UInt32? = nil) -> Bool {
        lock.lock()
        let attachment = closed ? nil : attachments[key]
        lock.unlock()
        guard let attachment else { return false }
        // Urgent, as the alarm after it, so that it comes first.
        if let notification { glib.run(urgent: true) { [self] in presenter.adopt(notification, for: key) } }
        var alert = override ?? attachment.alert
        alert.stackTag = attachment.alert.stackTag
        presentFinish(key, alert: alert, host: attachment.host, finish: true)
        return true
    }

    private func present(_ key: AlertKey, alert: Alert, label: String, buttons: [AlertButton],
                         overtime: Bool = false, rang: Bool = false, finish: Bool = false) {
        let chain = alert.soundChain
        lock.lock()
        pending += (alert.popup ? 1 : 0) + (chain.isEmpty ? 0 : 1)
        lock.unlock()
        if alert.popup {
            let content = AlertPresenter.Content(
                summary: alert.summary ?? label, body: alert.body ?? "Time is up", icon: alert.icon,
                urgency: alert.urgency, suppressSound: !chain.isEmpty, buttons: alert.actions ? buttons : [],
                stackTag: alert.stackTag, isFinishAlert: true)
            if let ring = alert.repeatSound, !chain.isEmpty {
                lock.lock()
                alarms[key]?.ring = AlarmState.Ring(content: content, at: Int64(Glibc.time(nil)), length: ring.nanoseconds)
                lock.unlock()
            }
            let work = UnsafeSendable(content)
            glib.run(urgent: true) { [self] in  // never behind live updates
                switch presenter.show(key, work.value) {
                case .success(let server):
                    report(.shown, key, "shown by \(server)", nil, notification: presenter.notificationID(of: key),
                           finish: finish)
                    if overtime { countOvertime(key, alarm: work.value, rang: rang) }
                case .failure(let failure):
                    report(.alertFailed, key, failure.reason, failure, finish: finish)
                }
                finishOne()
            }
        }
        if !chain.isEmpty {
            let tone = SoundPlayer.Tone(file: alert.soundFile, volume: alert.volume, fade: alert.fade?.nanoseconds ?? 0,
                                        pausesMedia: alert.pausesMedia)
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
        lock.lock()
        alarms[key] = nil
        lock.unlock()
        glib.run { [self] in
            stopFollowing(key)
            presenter.close(key)
        }
        sound.post(.stop(key))
    }

    /// A button was pressed; on the GLib thread.
    private func perform(_ action: String, on key: AlertKey) {
        guard key != Self.summaryKey else { return }  // it has no buttons; a click does nothing
        lock.lock()
        let attachment = attachments[key]
        lock.unlock()
        var newTimer: TimerID?
        let live = attachment?.alert.live ?? false
        if action.isSame(as: "restart") {
            _ = attachment?.host.perform(.start, on: key.timer)  // its RUNNING withdraws (or replaces) the alert
        } else if action.isSame(as: "snooze") {
            lock.lock()
            let ringing = alarms[key]?.ringing == true
            lock.unlock()
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
        lock.lock()
        let attachment = closed ? nil : attachments[key]
        let live = attachment?.alert.live ?? false
        alarms[key] = attachment != nil && !live ? AlarmState(snoozed: true) : nil
        lock.unlock()
        sound.post(.stop(key))
        guard let attachment, !live, attachment.alert.popup else { return }
        let label = attachment.host.label(of: key.timer)
        let content = AlertPresenter.Content(
            summary: attachment.alert.summary ?? (label.isEmpty ? "Timer" : label),
            body: "Snoozed for " + LiveDisplay.short(nanoseconds), icon: attachment.alert.icon, urgency: .normal,
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
    private func ringRanOut(_ key: AlertKey) {
        lock.lock()
        let ring = alarms[key]?.ringing == true ? alarms[key]?.ring : nil
        alarms[key]?.ring = nil
        lock.unlock()
        guard let ring else { return }
        let text = "Rang for \(LiveDisplay.short(ring.length)) at \(Self.timeOfDay(ring.at)), unanswered"
        report(.unanswered, key, text, nil)
        var content = ring.content
        content.body = text
        content.urgency = .critical  // stays until dismissed
        let work = UnsafeSendable(content)
        glib.run { [self] in
            stopFollowing(key)  // no more overtime lines over it
            if case .failure(let failure) = presenter.show(key, work.value) { report(.alertFailed, key, failure.reason, failure) }
        }
    }

    /// "07:00": a Unix time's local time of day.
    static func timeOfDay(_ unixSeconds: Int64) -> String {
        var time = time_t(unixSeconds)
        var local = tm()
        localtime_r(&time, &local)
        let (hour, minute) = (Int(local.tm_hour), Int(local.tm_min))
        return (hour < 10 ? "0" : "") + "\(hour):" + (minute < 10 ? "0" : "") + "\(minute)"
    }

    private func dismissed(_ key: AlertKey, byUser: Bool) {
        if key == Self.summaryKey { return hushSummary() }
        sound.post(.stop(key))  // a dismissed alert stops ringing
        hushFollowing(key)
        report(.dismissed, key, byUser ? "dismissed by the user" : "closed", nil)
    }
}

/// What the notifier keeps of a timer's alarm.
struct AlarmState {
    /// What the ring's alert shows, when it rang (Unix seconds) and for how
    /// long its sound rings (ns): to say when a ring went unanswered.
    struct Ring {
        var content: AlertPresenter.Content
        var at: Int64
        var length: Int64
    }

    /// Its finish alert is up: its Snooze snoozes (elsewhere the live
    /// notification's "+1 min" adds a minute).
    var ringing = false
    /// Snoozed, its alert (not a live one) says so until the next ring: the
    /// next run does not withdraw it, so that the ring replaces it (one
    /// notification, one id).
    var snoozed = false
    var ring: Ring?
}
