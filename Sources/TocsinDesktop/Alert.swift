import Glibc
import TocsinBase

/// What a finished timer shows and plays.
public struct Alert: Sendable, Hashable {
    public enum Urgency: Int32, Sendable {
        case low = 0, normal = 1, critical = 2
    }

    /// The alert's title; nil: the timer's label, or "Timer".
    public var summary: String?
    /// The text under the title; nil: "Time is up".
    public var body: String?
    /// An icon name from the icon theme, or a file path.
    public var icon: String
    /// Critical alerts (the default) stay until dismissed.
    public var urgency: Urgency
    /// A freedesktop sound theme event id; nil: no sound. If it cannot be
    /// played the notifier falls back to alarm-clock-elapsed, complete, bell,
    /// then the terminal's bell.
    public var sound: String?
    /// The PulseAudio media role the sound plays under.
    public var mediaRole: String
    /// Repeat the sound until the alert is dismissed or stopped, for at most
    /// this long; nil: play it once.
    public var repeatSound: Duration?
    /// Show a desktop notification (false: sound only).
    public var popup: Bool
    /// Offer Stop, Restart and +1 min buttons where the server has actions.
    public var actions: Bool
    /// While the timer runs or is paused, show one notification updated in
    /// place (time left, percent done, Pause/Resume, +1 min, Cancel) that
    /// becomes the alarm at zero and then counts the time since.
    public var live: Bool
    /// Play `warningSound` and say so this long before zero; nil: no warning.
    public var warning: Duration?
    /// The sound theme event id of the warning; nil: none (text only).
    public var warningSound: String?
    /// How long the alarm's "Snooze" button puts it off (1 s to 24 h); nil:
    /// the button is "+1 min" and gives `Notifier.Options.snooze`. Since 0.7.
    public var snooze: Duration?
    /// A sound file of one's own for the alarm (any file libcanberra plays:
    /// WAV, Ogg Vorbis/Opus, FLAC), tried before `sound`; one that cannot be
    /// played rings `sound` instead and the report says why. Since 0.7.
    public var soundFile: String?
    /// The alarm's volume in dB (0: as the sound is; -60 to +10). Since 0.7.
    public var volume: Double
    /// Over this time from the start of the ring the volume rises from 30 dB
    /// below `volume` to it (the sound replayed at rising gain); nil: at
    /// full volume at once. Since 0.7. With `media` there is no ring: the
    /// playing players' volume falls over this time before zero instead.
    public var fade: Duration?
    /// While the alarm rings, pause the media players that are playing
    /// (MPRIS), and resume those when it stops. Since 0.7.
    public var pausesMedia: Bool
    /// An alarm's upcoming-alarm notice: this long before it rings, a
    /// notification "Rings at 07:00, in 30 min" with Skip this one (a
    /// calendar alarm skips that ring; a one-time alarm is cancelled),
    /// closed at the ring or when the ring moves away; nil: none. Alarms
    /// only (a countdown's is `warning`). New after 0.8.0.
    public var notice: Duration?
    /// A sleep timer: at zero every playing media player (MPRIS) is paused
    /// or stopped, after its volume fell over `fade` (if set) and with
    /// its volume put back after; no sound plays (`sound`, `repeatSound`,
    /// `soundFile` and `pausesMedia` are not used), and the alarm's
    /// notification, if `popup`, says what was done ("Paused 2 players")
    /// instead of `body`, with no buttons. nil: none. New after 0.8.0.
    public var media: MediaAction?
    /// A tag that servers which know it (dunst, mako, swaync, notify-osd:
    /// `x-dunst-stack-tag`, `x-canonical-private-synchronous`) use to replace
    /// the notification showing with the same tag: the timer service's
    /// per-timer tag keeps a finish announced again after a crash to one
    /// notification even when the first one's id was never recorded.
    package var stackTag: String?
    /// The host announces each finish itself (`announceFinish`), after
    /// recording it; the notifier then does not present it on the FINISH.
    package var announcedByHost = false
    /// The body when `body` is nil, written in the language of the moment
    /// it is shown (the timer service's texts follow the session's).
    package var standardBody: StandardBody = .timeIsUp

    package enum StandardBody: Sendable, Hashable {
        /// "Time is up".
        case timeIsUp
        /// "Alarm".
        case alarm
        /// "Alarm: SPEC".
        case calendar(spec: String)

        var text: String {
            switch self {
            case .timeIsUp: tr("Time is up")
            case .alarm: tr("Alarm")
            case .calendar(let spec): tr("Alarm: {spec}", ["spec": spec])
            }
        }
    }

    public static let defaultSound = "alarm-clock-elapsed"
    public static let defaultWarningSound = "dialog-warning"
    /// The fallbacks after the requested sound, in order.
    public static let fallbackSounds = ["alarm-clock-elapsed", "complete", "bell"]

    public init(
        summary: String? = nil, body: String? = nil, icon: String = "appointment-soon",
        urgency: Urgency = .critical, sound: String? = Alert.defaultSound, mediaRole: String = "alarm",
        repeatSound: Duration? = nil, popup: Bool = true, actions: Bool = true,
        live: Bool = false, warning: Duration? = nil, warningSound: String? = Alert.defaultWarningSound,
        snooze: Duration? = nil, soundFile: String? = nil, volume: Double = 0, fade: Duration? = nil,
        pausesMedia: Bool = false, notice: Duration? = nil, media: MediaAction? = nil
    ) {
        self.summary = summary
        self.body = body
        self.icon = icon
        self.urgency = urgency
        self.sound = sound
        self.mediaRole = mediaRole
        self.repeatSound = repeatSound
        self.popup = popup
        self.actions = actions
        self.live = live
        self.warning = warning
        self.warningSound = warningSound
        self.snooze = snooze
        self.soundFile = soundFile
        self.volume = volume
        self.fade = fade
        self.pausesMedia = pausesMedia
        self.notice = notice
        self.media = media
    }

    /// The quietest and loudest `volume` (dB).
    public static let volumeRange: ClosedRange<Double> = -60...10

    /// Why `soundFile` cannot be played, checked when the alert is made
    /// (empty, missing, not a regular file, unreadable); nil if it can be
    /// opened. (Whether its data decodes is known only when it plays: then
    /// the theme's sound rings instead, and the report says why.)
    public static func problem(withSoundFile path: String) -> String? {
        guard !path.isEmpty else { return "the sound file's name is empty" }
        var info = stat()
        guard stat(path, &info) == 0 else { return "sound file '\(path)': \(String(cString: strerror(errno)))" }
        // (S_IFMT and S_IFREG, spelled out: their C types differ in Embedded Swift)
        guard UInt32(info.st_mode) & 0o170000 == 0o100000 else { return "sound file '\(path)': not a regular file" }
        guard access(path, R_OK) == 0 else { return "sound file '\(path)': \(String(cString: strerror(errno)))" }
        return nil
    }


    /// True if the notifier follows the timer's time, not only its finish.
    var followsTime: Bool { live || warning != nil || notice != nil || mediaFade != nil }

    /// The fade of a sleep timer's players, in nanoseconds; nil: none.
    var mediaFade: Int64? {
        guard media != nil, let nanoseconds = fade?.nanoseconds, nanoseconds > 0 else { return nil }
        return nanoseconds
    }

    /// The sound ids to try, in order.
    var soundChain: [String] {
        guard let sound, media == nil else { return [] }
        var chain = [sound]
        for fallback in Self.fallbackSounds where !chain.containsSame(fallback) {
            chain.append(fallback)
        }
        return chain
    }

    /// The warning's sound ids to try: a short one, never the alarm itself.
    var warningChain: [String] {
        guard let warningSound else { return [] }
        return warningSound.isSame(as: "bell") ? ["bell"] : [warningSound, "bell"]
    }
}
