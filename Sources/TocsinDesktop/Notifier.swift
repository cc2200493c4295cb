public import TocsinBase

/// Shows a desktop alert and plays the alarm sound when a timer finishes.
///
/// Alerts go through libnotify on a private GLib thread, sounds through
/// libcanberra on another: the engine's delivery thread only hands events
/// over, so a missing or frozen desktop never delays a timer. What happened
/// comes back as `NotifierReport`s (each distinct failure is also logged to
/// standard error once, unless `quiet`).
///
/// Thread safety: every method may be called from any thread, including
/// from timer handlers.
///
/// The work is done by a `NotifierCore`, which this closes when it goes
/// (`deinit`), so dropping the last reference to a notifier stops its
/// threads as `close()` does.
public final class Notifier: Sendable {
    public struct Options: Sendable {
        /// No log lines on standard error (reports still arrive).
        public var quiet: Bool
        /// How long the "+1 min" button snoozes.
        public var snooze: Duration
        /// How many live notifications show at once: those of the timers
        /// ending soonest (running countdowns, then stopwatches, then paused
        /// timers). The others are summed up in one notification, updated
        /// in place ("4 more timers": "Rice 3:12 · Eggs 7:40 …").
        public var liveLimit: Int

        public init(quiet: Bool = false, snooze: Duration = .seconds(60), liveLimit: Int = 3) {
            self.quiet = quiet
            self.snooze = snooze
            self.liveLimit = liveLimit
        }
    }

    package let core: NotifierCore

    public init(options: Options = Options()) throws(TocsinError) {
        core = try NotifierCore(options: options)
    }

    deinit {
        core.close()
    }

    /// Receives every report, on one of the notifier's threads (nil: none).
    public func setReportHandler(_ handler: (@Sendable (NotifierReport) -> Void)?) {
        core.setReportHandler(handler)
    }

    /// Receives the server id of the summary of the live timers beyond the
    /// limit when it is shown, and nil when it is closed, on the notifier's
    /// GLib thread (the timer service keeps it: `endRestore` after a
    /// restart).
    package func setSummaryHandler(_ handler: (@Sendable (UInt32?) -> Void)?) {
        core.setSummaryHandler(handler)
    }

    /// Receives how many timers' finish alerts (alarms, "Time is up") are
    /// on screen, each time that changes, on the notifier's GLib thread:
    /// the timer service does not exit while one is.
    package func setFinishAlertsHandler(_ handler: (@Sendable (Int) -> Void)?) {
        core.setFinishAlertsHandler(handler)
    }

    /// Restoring the timers an earlier process had: call before attaching
    /// them. Nothing live is shown until `endRestore`.
    package func beginRestore() {
        core.beginRestore()
    }

    /// Call once the restored timers are attached: the live notifications
    /// show, and `summary`, the summary the earlier process showed (its
    /// server id), is replaced in place, or closed if none is needed.
    /// Both calls are queued on the notifier's thread in order, so timers
    /// attached between them are all back before it decides.
    package func endRestore(summary: UInt32?) {
        core.endRestore(summary: summary)
    }

    /// Changes `Options.liveLimit` (0 to 1,000): the live notifications
    /// shown at once from now on.
    ///
    /// - Throws: `.invalidArgument` for a count out of range.
    public func setLiveLimit(_ count: Int) throws(TocsinError) {
        guard (0...1000).contains(count) else { throw .invalidArgument }
        core.setLiveLimit(count)
    }

    /// Shows `alert` now, with no timer (no Restart or +1 min buttons).
    public func show(_ alert: Alert) {
        core.show(alert)
    }

    /// Waits until every alert asked for so far is shown (or failed) and
    /// every sound has finished (a repeating one: until stopped or its limit),
    /// for at most `timeout`. True if nothing is left pending. For programs
    /// that exit right after a timer finishes.
    public func flush(timeout: Duration) -> Bool {
        core.flush(timeout: timeout)
    }

    /// Checks the session bus, the notification server and the sound server,
    /// and which file each alarm sound is. Bounded: at most 1 s for each of
    /// two D-Bus calls and 2 s for the sound server.
    public func diagnose() -> Diagnosis {
        core.diagnose()
    }

    /// Silences everything, withdraws every alert and stops the threads.
    /// Closing twice does nothing.
    public func close() {
        core.close()
    }
}
