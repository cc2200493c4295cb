import TocsinBase

/// What the notifier keeps for a timer whose time it follows: the live
/// notification, the warning, the alarm's overtime. GLib thread only.
struct Following {
    /// Its own pending GLib timeout (0: none): a warning due before the
    /// next beat, or the look a warned-only timer awaits.
    var source: UInt32 = 0
    /// The warning has been given for this run.
    var warned = false
    /// The live frame on screen; nil: none (not shown, or summed up).
    var shownFrame: LiveDisplay.Frame?
    /// The live frame it would show now; nil: it wants none (not live,
    /// hushed, neither running nor paused).
    var liveFrame: LiveDisplay.Frame?
    /// Its place among the live timers (`LiveDisplay.rank`), and its line
    /// in the summary ("Rice 3:12").
    var rank: Int64 = .max
    var brief = ""
    var icon = ""
    /// Closed by the person, or failed to show: no live updates until the
    /// timer's next state change (never a notification loop, never a retry
    /// every second against a broken server). The warning still sounds.
    var hushed = false
    /// The alarm on screen and when it went off (monotonic ns), for the
    /// overtime line, and the overtime step shown.
    var alarm: AlertPresenter.Content?
    var alarmSince: Int64 = 0
    var overtimeShown: Int64 = 0
    /// The alarm is a wall-clock alarm's ("Rang 0:10 ago").
    var alarmRang = false
    /// The state at the last look: a state event the look already saw
    /// (the look at attach time came first) changes nothing.
    var lastState: HostReading.State?
    /// When a live frame was last sent (monotonic ns).
    var lastSent: Int64 = -LiveDisplay.second

    /// Looked at on every beat: it shows a live frame or counts overtime.
    var onBeat: Bool { liveFrame != nil || (alarm != nil && !hushed) }
}

/// The live notifications of all timers together (GLib thread only): one
/// beat at every whole second of the wall clock looks at every followed
/// timer, so a hundred live timers wake the notifier once a second, not a
/// hundred times; the `Notifier.Options.liveLimit` soonest show their own
/// notification, the others one summary, updated in place.
struct LiveBoard {
    /// The beat's GLib timeout (0: none), and a presentation asked for at
    /// once (a button, a state change), coalesced.
    var beat: UInt32 = 0
    var soon: UInt32 = 0
    /// The summary's title and body on screen; nil: none.
    var summary: String?
    /// The person closed the summary: it stays closed while the same
    /// timers are summed up.
    var summaryHushed: [AlertKey]?
    /// A restarted host is attaching the timers an earlier process had:
    /// nothing live is shown until all are back (an adopted summary closed
    /// while only some are would be shown anew, beside the old one).
    var restoring = false
}

/// Why the notifier looks at a timer's time.
enum LookCause: Equatable {
    /// A state change: a hushed notification shows again.
    case changed(HostEvent)
    /// The alert was just attached (the timer may be running already).
    case attached
    /// The beat, or its own timeout (a warning).
    case due
    /// A button was pressed or a refresh asked: shown at once.
    case asked
}

extension NotifierCore {
    /// The key of the summary notification ("4 more timers"): no timer's.
    static let summaryKey = AlertKey(host: nil, timer: .max)

    /// Reads the timer and brings its warning and live frame up to date;
    /// `present`: then shows what changed (soon, together with any other
    /// change; the beat presents once after all its looks). GLib thread only.
    func followTime(_ key: AlertKey, because cause: LookCause, present: Bool = true) {
        guard let (alert, label, reading) = readTimer(key) else {
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
        state.lastState = reading.state
        if running, state.alarm != nil {  // run again (+1 min, Restart): the alarm gives way
            state.alarm = nil
            state.shownFrame = nil
            if !alert.live { presenter.close(key) }
        }
        let announcing = settleWarning(&state, key, alert, reading, cause)
        let name = alert.summary ?? (label.isEmpty ? "Timer" : label)
        let frame = LiveDisplay.frame(label: name, reading: reading, warning: alert.warning?.nanoseconds,
                                      warned: state.warned, announcing: announcing)
        if alert.live {
            state.liveFrame = alert.popup && !state.hushed ? frame : nil
            state.rank = LiveDisplay.rank(reading)
            state.brief = LiveDisplay.brief(label: name, reading: reading)
            state.icon = alert.icon
        } else {
            showWarning(&state, key, alert, frame: announcing ? frame : nil)
        }
        if let wait = nextLook(reading, alert: alert, state: state) {
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
        warn(key, alert, phrase: LiveDisplay.phrase(warning ?? 0))
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

    // MARK: - The beat

    /// Arms the beat for the next whole second of the wall clock, unless armed.
    func armBeat() {
        guard board.beat == 0 else { return }
        let wait = LiveDisplay.second - Clocks.realtime() % LiveDisplay.second
        board.beat = glib.after(milliseconds: UInt32(clamping: (wait + 999_999) / 1_000_000)) { [self] in beat() }
    }

    /// Every followed timer that shows a live frame or counts overtime is
    /// looked at, then the live notifications are shown together.
    private func beat() {
        board.beat = 0
        for key in Array(following.keys) {
            guard let state = following[key], state.onBeat else { continue }
            if state.alarm != nil { updateOvertime(key) } else { followTime(key, because: .due, present: false) }
        }
        presentLive(paced: true)
        if following.values.contains(where: { $0.onBeat }) { armBeat() }
    }

    /// Shows the live notifications at once (after the work queued now:
    /// several changes in a row show once).
    func presentLiveSoon() {
        guard board.soon == 0 else { return }
        board.soon = glib.after(milliseconds: 0) { [self] in
            board.soon = 0
            presentLive(paced: false)
        }
    }

    /// The `liveLimit` soonest live timers show their own notification (a
    /// frame is sent only when its text changed; `paced`: not sooner than
    /// `minimumGap` after the last, so a button's frame is not followed by
    /// the beat's an instant later), the others are closed and summed up in one.
    private func presentLive(paced: Bool) {
        guard !board.restoring else { return }  // `endRestore` presents
        let live = rankedLive()
        let limit = liveLimit
        let now = Clocks.monotonic()
        var strays = 0
        for (position, key) in live.enumerated() {
            guard var state = following[key], let frame = state.liveFrame else { continue }
            if position < limit {
                guard frame != state.shownFrame, !paced || state.shownFrame == nil || now - state.lastSent >= LiveDisplay.minimumGap,
                      let alert = attachedAlert(key) else { continue }
                showFrame(&state, key, frame, alert: alert)
            } else if state.shownFrame != nil {
                presenter.close(key)  // summed up from now on
                state.shownFrame = nil
            } else if strays < LiveDisplay.straysPerLook, presenter.closeAdopted(key) {
                // An earlier process's, left showing: closed a few at a time
                // (each is a round trip), and the host forgets its id.
                strays += 1
                report(.dismissed, key, "closed: its place went to sooner timers", nil)
            }
            following[key] = state
        }
        presentSummary(Array(live.dropFirst(limit)))
    }

    /// The timers that show a live frame, soonest first (`LiveDisplay.rank`),
    /// ties broken by their handle.
    private func rankedLive() -> [AlertKey] {
        var live: [(key: AlertKey, rank: Int64)] = []
        for (key, state) in following where state.liveFrame != nil { live.append((key, state.rank)) }
        live.sort { $0.rank != $1.rank ? $0.rank < $1.rank : $0.key.timer < $1.key.timer }
        return live.map { $0.key }
    }

    /// Sends one frame (a live one, or a warning), replacing the timer's
    /// notification in place.
    private func showFrame(_ state: inout Following, _ key: AlertKey, _ frame: LiveDisplay.Frame, alert: Alert?) {
        guard frame != state.shownFrame, let alert = alert ?? attachedAlert(key) else { return }
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
            state.lastSent = Clocks.monotonic()
        case .failure(let failure):
            report(.alertFailed, key, failure.reason, failure)
            state.hushed = true
            state.liveFrame = nil
        }
    }

    /// The summary of the live timers beyond the limit, in their order:
    /// "3 more timers" / "Rice 3:12 · Eggs 7:40 · Soup 9:05 …". Updated in
    /// place when its text changes; closed when none is left.
    private func presentSummary(_ keys: [AlertKey]) {
        if let hushed = board.summaryHushed {
            if hushed == keys { return }
            board.summaryHushed = nil
        }
        guard let first = keys.first.flatMap({ following[$0] }) else {
            if board.summary != nil || presenter.closeAdopted(Self.summaryKey) {
                presenter.close(Self.summaryKey)
                noteSummary(nil)
            }
            board.summary = nil
            return
        }
        let title = keys.count == 1 ? "1 more timer" : "\(keys.count) more timers"
        var lines = keys.prefix(LiveDisplay.summaryLines).compactMap { following[$0]?.brief }.joined(separator: " · ")
        if keys.count > LiveDisplay.summaryLines { lines += " …" }
        guard board.summary.map({ !$0.isSame(as: title + "\n" + lines) }) ?? true else { return }
        let content = AlertPresenter.Content(
            summary: title, body: lines, icon: first.icon, urgency: .low, suppressSound: true, buttons: [],
            resident: true, stackTag: "dev.tocsin.timers.more")
        if case .success = presenter.show(Self.summaryKey, content) {
            if board.summary == nil { noteSummary(presenter.notificationID(of: Self.summaryKey)) }
            board.summary = title + "\n" + lines
        } else {
            board.summaryHushed = keys  // no retry every second against a broken server
        }
    }

    /// The person closed the summary: closed while the same timers are summed up.
    func hushSummary() {
        board.summary = nil
        board.summaryHushed = Array(rankedLive().dropFirst(liveLimit))
        noteSummary(nil)
    }

    /// See `Notifier.beginRestore`.
    func beginRestore() {
        glib.run { [self] in board.restoring = true }
    }

    /// See `Notifier.endRestore`.
    func endRestore(summary: UInt32?) {
        glib.run { [self] in
            board.restoring = false
            if let summary { presenter.adopt(summary, for: Self.summaryKey) }
            presentLiveSoon()  // the summary replaced, or closed if nothing is summed up
        }
    }

    /// Tells the host the summary's server id (nil: closed).
    private func noteSummary(_ notification: UInt32?) {
        lock.lock()
        let handler = summaryHandler
        lock.unlock()
        handler?(notification)
    }

    /// Changes how many live notifications show at once; the others are
    /// summed up from the next presentation (at once).
    package func setLiveLimit(_ count: Int) {
        glib.run { [self] in
            liveLimit = max(0, count)
            presentLiveSoon()
        }
    }

    /// Cancels the beat and a pending presentation (closing).
    func stopBeat() {
        glib.cancel(board.beat)
        glib.cancel(board.soon)
        board = LiveBoard()
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
        lock.lock()
        pending += 1
        lock.unlock()
        sound.post(.play(key, chain: chain, role: "event", repeatFor: nil))
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

    private func updateOvertime(_ key: AlertKey) {
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
    private func attachedAlert(_ key: AlertKey) -> Alert? {
        lock.lock()
        defer { lock.unlock() }
        return attachments[key]?.alert
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
