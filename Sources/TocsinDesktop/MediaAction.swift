import TocsinBase

/// What a sleep timer does to the media players (MPRIS) that play at its
/// zero (`Alert.media`, the command's `--media`, the service's `media`
/// option): pause them or stop them. With a fade (`Alert.fade`) each
/// playing player's volume first falls linearly over the last `fade`
/// before zero, to about nothing at zero; after the Pause or Stop each
/// faded player gets its volume back. No alarm sound plays for such a
/// timer. New after 0.8.0.
///
/// (No `String` raw type: its `init?(rawValue:)` would compare with
/// Unicode-aware `==`, which the Embedded notifier library cannot spare.)
public enum MediaAction: Sendable, Hashable {
    case pause, stop

    /// Its word in the service's `media` option, the journal and the
    /// command's `--media`.
    public var name: String {
        switch self {
        case .pause: "pause"
        case .stop: "stop"
        }
    }

    /// The action named `name` (exactly); nil for any other word.
    public init?(name: String) {
        if name.isSame(as: "pause") {
            self = .pause
        } else if name.isSame(as: "stop") {
            self = .stop
        } else {
            return nil
        }
    }

    /// The MPRIS method it calls (`org.mpris.MediaPlayer2.Player`).
    var method: StaticString {
        switch self {
        case .pause: "Pause"
        case .stop: "Stop"
        }
    }

    /// How late a finish may be announced and still act on the players:
    /// 60 s in nanoseconds. A sleep timer whose zero passed while its host
    /// was away (the service stopped, the computer asleep) does not pause
    /// music started since, hours later.
    package static let lateGrace: Int64 = 60 * Nanos.perSecond

    /// How often the volume is lowered during a fade, in nanoseconds (0.5 s:
    /// steps of at most 1/120 of the volume for a minute's fade, each step
    /// two calls per player).
    static let fadeStep: Int64 = Nanos.perSecond / 2

    /// The share of its volume a faded player plays at, `remaining`
    /// nanoseconds before zero of a fade `fade` ns long: 1 at the fade's
    /// start, falling linearly to 0 at zero; nil if no fade is under way
    /// (no fade, or more than `fade` left). O(1), pure.
    static func fadeLevel(remaining: Int64, fade: Int64) -> Double? {
        guard fade > 0, remaining <= fade else { return nil }
        return Double(max(remaining, 0)) / Double(fade)
    }

    /// Nanoseconds until the fade's next step, `remaining` ns before zero;
    /// nil at zero (the finish acts then). The last step lands on zero's
    /// side of it, never after.
    static func nextFadeStep(remaining: Int64) -> Int64? {
        remaining > 0 ? min(fadeStep, remaining) : nil
    }

    /// What the notification at zero says: "Paused 2 players", "Stopped 1
    /// player", "No player was playing".
    func outcome(_ count: Int) -> String {
        if count == 0 { return tr("No player was playing") }
        return switch self {
        case .pause: trn("Paused {count} player", "Paused {count} players", count)
        case .stop: trn("Stopped {count} player", "Stopped {count} players", count)
        }
    }
}
