import TocsinBase

/// The live board (GLib thread only): the beat, the soonest timers' live
/// notifications up to the limit, the summary of the others, and a host's
/// restore.
extension NotifierCore {
    /// The key of the summary notification ("4 more timers"): no timer's.
    static let summaryKey = AlertKey(host: nil, timer: .max)

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
    func showFrame(_ state: inout Following, _ key: AlertKey, _ frame: LiveDisplay.Frame, alert: Alert?) {
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
        let title = trn("1 more timer", "{count} more timers", keys.count)
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
        let handler = lock.withLock { summaryHandler }
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
}
