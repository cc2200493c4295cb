import TocsinBase

/// What the notifier keeps for a timer whose time it follows: the live
/// notification, the warning, the alarm's overtime. GLib thread only.
struct Following {
    /// Its own pending GLib timeout (0: none): a warning due before the
    /// next beat, or the look a warned-only timer awaits.
    var source: UInt32 = 0
    /// The warning has been given for this run.
    var warned = false
    /// The upcoming-alarm notice is on screen (a non-live alert's).
    var noticeShown = false
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
    /// A calendar alarm rang and runs on: its next ring's notice shows even
    /// if the person closed the last one.
    case rang
    /// A button was pressed or a refresh asked: shown at once.
    case asked
}

