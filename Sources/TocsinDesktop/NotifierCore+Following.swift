import TocsinBase

/// Following a timer's time (GLib thread only): its live frame, its
/// warning before zero, its alarm's overtime, on the beat or a timeout.
extension NotifierCore {
    /// Reads the timer and brings its warning and live frame up to date;
    /// `present`: then shows what changed (soon, together with any other
    /// change; the beat presents once after all its looks); `reading`: the
    /// timer as read earlier, instead of now. GLib thread only.
    func followTime(_ key: AlertKey, because cause: LookCause, present: Bool = true, reading earlier: HostReading? = nil) {
        guard let (alert, label, reading) = readTimer(key, earlier) else {
            stopFollowing(key)
            presenter.close(key)
            if present { presentLiveSoon() }
            return
        }
        var state = following[key] ?? Following()
        glib.cancel(state.source)
        state.source = 0
        let running = reading.state == .running || reading.state == .suspended
        // A state event for a change an earlier look showed already (a
        // button's, shown at once) brings nothing new.
        let news = reading.state != state.lastState
        if case .changed = cause, news { state.hushed = false }
        if cause == .rang { state.hushed = false }
        state.lastState = reading.state
        if running, state.alarm != nil {  // run again (+1 min, Restart): the alarm gives way
            state.alarm = nil
            state.shownFrame = nil
            if !alert.live { presenter.close(key) }
        }
        let announcing = settleWarning(&state, key, alert, reading, cause)
        settleMediaFade(key, alert, reading)
        let name = alert.summary ?? (label.isEmpty ? tr("Timer") : label)
        let frame = LiveDisplay.frame(label: name, reading: reading, warning: alert.warning?.nanoseconds,
                                      warned: state.warned, announcing: announcing)
        let notice = noticeFrame(alert, label: name, reading)
        if alert.live {
            // A live alarm's frame gains the notice's Skip this one while it is due.
            let shown = notice.map { notice in frame.map { LiveDisplay.withNotice($0, notice) } ?? notice } ?? frame
            state.liveFrame = alert.popup && !state.hushed ? shown : nil
            state.rank = LiveDisplay.rank(reading)
            state.brief = LiveDisplay.brief(label: name, reading: reading)
            state.icon = alert.icon
        } else if !showNotice(&state, key, alert, frame: notice) {
            showWarning(&state, key, alert, frame: announcing ? frame : nil)
        }
        let looks = [nextLook(reading, alert: alert, state: state), nextNoticeLook(reading, alert: alert, state: state),
                     nextMediaFadeLook(key, reading, alert: alert)]
        if let wait = looks.compactMap({ $0 }).min() {
            state.source = glib.after(milliseconds: Self.milliseconds(wait)) { [self] in
                followTime(key, because: .due)
            }
        }
        following[key] = state
        if state.onBeat { armBeat() }
        if present { presentLiveSoon() }
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
        warn(key, alert, phrase: Wording.phrase(warning ?? 0))
        return true
    }

    /// The warning of an alert that is not live: shown when given, closed
    /// once it no longer holds (more time was given).
    private func showWarning(_ state: inout Following, _ key: AlertKey, _ alert: Alert, frame: LiveDisplay.Frame?) {
        guard alert.popup && !state.hushed, let frame else {
            if !state.warned && state.shownFrame != nil {
                presenter.close(key)
                state.shownFrame = nil
            }
            return
        }
        showFrame(&state, key, frame, alert: nil)
    }

    /// Nanoseconds until the timer should be read again; nil: not until its
    /// next state change.
    private func nextLook(_ reading: HostReading, alert: Alert, state: Following) -> Int64? {
        let warning = alert.warning?.nanoseconds
        if state.liveFrame != nil {
            // The beat looks every second (a paused one too: an adjust of
            // a paused timer sends no event); only a warning due before
            // the next beat needs a look of its own, on time.
            guard reading.state == .running, let warning, !state.warned, let remaining = reading.remaining,
                  remaining > warning, remaining - warning < LiveDisplay.second - Clocks.realtime() % LiveDisplay.second
            else { return nil }
            return remaining - warning
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
        lock.withLock { pending += 1 }
        sound.post(.play(key, chain: chain, role: "event", repeatFor: nil, tone: SoundPlayer.Tone(description: tr("Time almost up"))))
    }

    /// The alarm of a live alert is showing: its body counts the time
    /// since, moved on by the beat every 10 s.
    func countOvertime(_ key: AlertKey, alarm: AlertPresenter.Content, rang: Bool) {
        // An alarm shown by work queued just before `close()` ran: nothing
        // may be scheduled past close.
        guard !isClosed else { return }
        var state = following[key] ?? Following()
        glib.cancel(state.source)
        state.source = 0
        state.alarm = alarm
        state.alarmSince = Clocks.monotonic()
        state.overtimeShown = 0
        state.alarmRang = rang
        state.shownFrame = nil
        state.liveFrame = nil
        state.hushed = false
        following[key] = state
        armBeat()
        presentLiveSoon()  // its place among the live ones is free
    }

    func updateOvertime(_ key: AlertKey) {
        guard var state = following[key], var content = state.alarm, !state.hushed else { return }
        let since = Clocks.monotonic() - state.alarmSince
        let step = since / LiveDisplay.overtimeStep
        guard step != state.overtimeShown else { return }
        state.overtimeShown = step
        content.body = LiveDisplay.overtime(content.body, since: since, alarm: state.alarmRang)
        if case .failure(let failure) = presenter.show(key, content) {
            report(.alertFailed, key, failure.reason, failure)
            state.hushed = true
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
        state.liveFrame = nil
        following[key] = state
        followTime(key, because: .due)  // reschedules for the warning only; its place goes to the next
    }

    /// Forgets the timer's live state and pending timeout; its place among
    /// the live ones goes to the next. GLib thread only.
    func stopFollowing(_ key: AlertKey) {
        guard let state = following.removeValue(forKey: key) else { return }
        glib.cancel(state.source)
        if state.liveFrame != nil { presentLiveSoon() }
    }

    /// The alert attached to a timer, if any.
    func attachedAlert(_ key: AlertKey) -> Alert? {
        lock.withLock { attachments[key]?.alert }
    }

    /// The attached alert, label and reading (`earlier`, else now) of a
    /// timer, read under the lock so that a host being detached is never
    /// read after it returns.
    private func readTimer(_ key: AlertKey, _ earlier: HostReading?) -> (Alert, String, HostReading)? {
        lock.withLock {
            guard let attachment = attachments[key], attachment.alert.followsTime,
                  let reading = earlier ?? attachment.host.reading(of: key.timer) else { return nil }
            return (attachment.alert, attachment.host.label(of: key.timer), reading)
        }
    }

    /// A GLib timeout for `nanoseconds`, rounded up so it fires after the change.
    private static func milliseconds(_ nanoseconds: Int64) -> UInt32 {
        UInt32(clamping: (max(nanoseconds, 0) + 999_999) / 1_000_000 + 1)
    }
}
