import TocsinBase

/// What the notifier keeps for a timer whose time it follows: the live
/// notification, the warning, the alarm's overtime. GLib thread only.
struct Following {
    /// The pending GLib timeout (0: none).
    var source: UInt32 = 0
    /// The warning has been given for this run.
    var warned = false
    /// The live frame on screen; nil: none yet (the next one is shown).
    var shownFrame: LiveDisplay.Frame?
    /// Closed by the person, or failed to show: no live updates until the
    /// timer's next state change (never a notification loop, never a retry
    /// every second against a broken server). The warning still sounds.
    var hushed = false
    /// The alarm on screen and when it went off (monotonic ns), for the
    /// overtime line.
    var alarm: AlertPresenter.Content?
    var alarmSince: Int64 = 0
    /// The alarm is a wall-clock alarm's ("Rang 0:10 ago").
    var alarmRang = false
    /// The state at the last look: a state event the look already saw
    /// (the look at attach time came first) changes nothing.
    var lastState: HostReading.State?
    /// When a live frame was last sent (monotonic ns).
    var lastSent: Int64 = -LiveDisplay.second
}

/// Why the notifier looks at a timer's time.
enum LookCause: Equatable {
    /// A state change: a hushed notification shows again.
    case changed(HostEvent)
    /// The alert was just attached (the timer may be running already).
    case attached
    /// Its next change fell due (a timeout): shown at most once a second.
    case due
    /// A button was pressed or a refresh asked: shown at once.
    case asked
}

extension NotifierCore {
    /// Reads the timer and brings its live notification and warning up to
    /// date; then waits for the next change. GLib thread only.
    func followTime(_ key: AlertKey, because cause: LookCause) {
        guard let (alert, label, reading) = readTimer(key) else {
            stopFollowing(key)
            presenter.close(key)
            return
        }
        var state = following[key] ?? Following()
        glib.cancel(state.source)
        state.source = 0
        let running = reading.state == .running || reading.state == .suspended
        // A state event for a change an earlier look showed already (a
        // button's, shown at once) brings nothing new: it keeps the pace.
        let news = reading.state != state.lastState
        if case .changed = cause, news { state.hushed = false }
        state.lastState = reading.state
        if running, state.alarm != nil {  // run again (+1 min, Restart): the alarm gives way
            state.alarm = nil
            state.shownFrame = nil
            if !alert.live { presenter.close(key) }
        }
        let announcing = settleWarning(&state, key, alert, reading, cause)
        let now = Clocks.monotonic()
        // A timeout after a change shown out of step (a button, a resume)
        // waits for a second since it: never more than one update a second.
        var held: Int64?
        let paced = cause == .due || (!news && { if case .changed = cause { true } else { false } }())
        if paced, !announcing, now - state.lastSent < LiveDisplay.second {
            held = state.lastSent + LiveDisplay.second - now
        } else {
            show(&state, key, alert, label, reading, announcing: announcing, now: now)
        }
        if let wait = held ?? nextLook(reading, alert: alert, state: state) {
            state.source = glib.after(milliseconds: Self.milliseconds(wait)) { [self] in
                followTime(key, because: .due)
            }
        }
        following[key] = state
    }

    /// Decides the warning for this look: true if it is given now (then its
    /// sound plays).
    private func settleWarning(_ state: inout Following, _ key: AlertKey, _ alert: Alert, _ reading: HostReading,
                               _ cause: LookCause) -> Bool {
        let warning = alert.warning?.nanoseconds
        if let warning, let remaining = reading.remaining {
            // Started with less time than the warning: it would only startle.
            let fresh = cause == .changed(.running) || cause == .attached
            if fresh && remaining <= warning && state.shownFrame == nil { state.warned = true }
            // Given more time since: warn again when it comes round.
            if state.warned && remaining > warning { state.warned = false }
        }
        guard LiveDisplay.warningDue(reading, warning: warning, warned: state.warned) else { return false }
        state.warned = true
        warn(key, alert, phrase: LiveDisplay.phrase(warning ?? 0))
        return true
    }

    /// Shows the live frame (or the warning's) if it differs from the one on
    /// screen; closes a warning that no longer holds.
    private func show(_ state: inout Following, _ key: AlertKey, _ alert: Alert, _ label: String, _ reading: HostReading,
                      announcing: Bool, now: Int64) {
        guard alert.popup && !state.hushed && (alert.live || announcing),
              let frame = LiveDisplay.frame(label: alert.summary ?? (label.isEmpty ? "Timer" : label), reading: reading,
                                            warning: alert.warning?.nanoseconds, warned: state.warned,
                                            announcing: announcing)
        else {
            if !alert.live && !state.warned && state.shownFrame != nil {
                presenter.close(key)  // a warning that no longer holds (more time was given)
                state.shownFrame = nil
            }
            return
        }
        guard frame != state.shownFrame else { return }
        let content = AlertPresenter.Content(
            summary: frame.summary, body: frame.body, icon: alert.icon, urgency: frame.urgency,
            suppressSound: true, buttons: alert.actions ? frame.buttons : [], value: frame.value, resident: alert.live,
            stackTag: alert.stackTag)
        switch presenter.show(key, content) {
        case .success(let server):
            if state.shownFrame == nil {
                report(.shown, key, "live, shown by \(server)", nil, notification: presenter.notificationID(of: key))
            }
            state.shownFrame = frame
            state.lastSent = now
        case .failure(let failure):
            report(.alertFailed, key, failure.reason, failure)
            state.hushed = true
        }
    }

    /// Nanoseconds until the timer should be read again; nil: not until its
    /// next state change.
    private func nextLook(_ reading: HostReading, alert: Alert, state: Following) -> Int64? {
        let warning = alert.warning?.nanoseconds
        if alert.live && alert.popup && !state.hushed {
            // Paused: read each second without showing anything unless it
            // changed (an adjust of a paused timer sends no event).
            if reading.state == .suspended { return LiveDisplay.second }
            return LiveDisplay.nextChange(of: reading, warning: warning, warned: state.warned)
        }
        guard reading.state == .running, let warning, !state.warned, let remaining = reading.remaining else { return nil }
        // Only the warning is awaited; look again at least every minute in
        // case the time was changed meanwhile.
        return min(max(remaining - warning, 1), 60 * LiveDisplay.second)
    }

    /// Plays the warning sound and reports it.
    private func warn(_ key: AlertKey, _ alert: Alert, phrase: String) {
        let chain = alert.warningChain
        report(.warning, key, "\(phrase) left", nil)
        guard !chain.isEmpty else { return }
        lock.lock()
        pending += 1
        lock.unlock()
        sound.post(.play(key, chain: chain, role: "event", repeatFor: nil))
    }

    /// The alarm of a live alert is showing: its body counts the time since.
    func countOvertime(_ key: AlertKey, alarm: AlertPresenter.Content, rang: Bool) {
        // An alarm shown by work queued just before `close()` ran: its timeout
        // would hold the notifier past close (follow-ups read the attachment,
        // which close removed, and schedule nothing).
        guard !isClosed else { return }
        var state = following[key] ?? Following()
        glib.cancel(state.source)
        state.alarm = alarm
        state.alarmSince = Clocks.monotonic()
        state.alarmRang = rang
        state.shownFrame = nil
        state.hushed = false
        state.source = glib.after(milliseconds: Self.milliseconds(LiveDisplay.overtimeStep)) { [self] in
            updateOvertime(key)
        }
        following[key] = state
    }

    private func updateOvertime(_ key: AlertKey) {
        guard var state = following[key], var content = state.alarm, !state.hushed else { return }
        let since = Clocks.monotonic() - state.alarmSince
        let base = content.body
        content.body = LiveDisplay.overtime(base, since: since, alarm: state.alarmRang)
        if case .failure(let failure) = presenter.show(key, content) {
            report(.alertFailed, key, failure.reason, failure)
            state.hushed = true
        }
        if !state.hushed {
            state.source = glib.after(milliseconds: Self.milliseconds(LiveDisplay.nextOvertime(since: since))) { [self] in
                updateOvertime(key)
            }
        }
        following[key] = state
    }

    /// The person closed the notification: no more updates until the timer's
    /// state changes (the warning still sounds). GLib thread only.
    func hushFollowing(_ key: AlertKey) {
        guard var state = following[key] else { return }
        state.hushed = true
        state.alarm = nil
        state.shownFrame = nil
        following[key] = state
        followTime(key, because: .due)  // reschedules for the warning only
    }

    /// Forgets the timer's live state and pending timeout. GLib thread only.
    func stopFollowing(_ key: AlertKey) {
        guard let state = following.removeValue(forKey: key) else { return }
        glib.cancel(state.source)
    }

    /// The attached alert, label and reading of a timer, read under the
    /// lock so that a host being detached is never read after it returns.
    private func readTimer(_ key: AlertKey) -> (Alert, String, HostReading)? {
        lock.lock()
        defer { lock.unlock() }
        guard let attachment = attachments[key], attachment.alert.followsTime,
              let reading = attachment.host.reading(of: key.timer) else { return nil }
        return (attachment.alert, attachment.host.label(of: key.timer), reading)
    }

    /// A GLib timeout for `nanoseconds`, rounded up so it fires after the change.
    private static func milliseconds(_ nanoseconds: Int64) -> UInt32 {
        UInt32(clamping: (max(nanoseconds, 0) + 999_999) / 1_000_000 + 1)
    }
}
