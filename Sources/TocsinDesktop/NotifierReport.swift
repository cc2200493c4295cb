public import TocsinBase

/// Something the notifier did, or could not do, for an alert. Reports arrive
/// on one of the notifier's threads: keep the handler short.
public struct NotifierReport: Sendable, Hashable, CustomStringConvertible {
    public enum Kind: Int32, Sendable {
        /// The desktop notification is showing.
        case shown = 1
        /// The desktop notification could not be shown (`detail` says why).
        case alertFailed = 2
        /// A sound is playing (`detail` names it: an event id or "terminal-bell").
        case soundPlayed = 3
        /// No sound could be played (`detail` says why).
        case soundFailed = 4
        /// The user pressed a button (`detail`: "stop", "restart", "snooze",
        /// or on a live notification "pause", "resume", "cancel").
        case action = 5
        /// The alert was dismissed or closed.
        case dismissed = 6
        /// The warning before zero was given (`detail`: "1 minute left").
        case warning = 7
        /// The alarm rang all its ring time (`Alert.repeatSound`) and nobody
        /// stopped, snoozed or dismissed it (`detail`: "Rang for 1 min at
        /// 07:00, unanswered", what its notification now says). Since 0.7.
        case unanswered = 8
    }

    public var kind: Kind
    /// The timer, or nil for an alert shown with `Notifier.show`.
    public var timer: TimerID?
    public var detail: String
    /// The error code for a failure (`TocsinError.unavailable` or `.io`).
    public var error: TocsinError?
    /// The countdown a snooze ran again (the alert's own timer, since 0.3).
    public var newTimer: TimerID?
    /// The engine's host, for the C interface to name the engine.
    package var host: ObjectIdentifier?
    /// For `.shown`: the notification's id on the server (the timer service
    /// keeps it, to replace that notification after a restart).
    package var notification: UInt32?
    /// For `.shown` and `.alertFailed`: the report of a finish the host
    /// announced (`announceFinish`), not of a live frame or a warning.
    package var finish = false

    public var description: String {
        var text = "\(kind): \(detail)"
        if let timer { text += " [\(timer)]" }
        return text
    }
}
