import ArgumentParser
import TocsinBase
import TocsinCLI
import TocsinNotify

/// How the command speaks of each alarm setting: its options, their help,
/// and what a duration option takes, as its error says it. One place per
/// setting: `AlarmOptions` and `Countdown` declare their options with these,
/// and Tests/alarm-fields.tsv checks that every setting has its option.
extension AlarmSettings.Field {
    /// The options that set it ("--no-alert" and "--quiet" turn `alert` off).
    var options: [String] {
        switch self {
        case .alert: ["--no-alert", "--quiet"]
        case .sound: ["--no-sound", "--quiet"]
        case .live: ["--live", "--no-live"]
        case .warn: ["--warn"]
        case .snooze: ["--snooze"]
        case .ring: ["--ring"]
        case .soundFile: ["--sound"]
        case .volume: ["--volume"]
        case .fade: ["--fade"]
        case .pauseMedia: ["--pause-media", "--no-pause-media"]
        case .notice: ["--notice"]
        case .warnSound: ["--no-warn-sound"]
        case .media: ["--media"]
        }
    }

    /// Its option's help (`--help` stays English: docs/translating.md).
    var help: String {
        switch self {
        case .alert: "No desktop alert at zero."
        case .sound: "No sound at zero."
        case .live:
            "A desktop notification showing the time left while it runs (a calendar alarm's: to its next ring), with Pause, +1 min "
                + "and Cancel (default: on for a countdown with -b, off in the foreground and for calendar alarms)."
        case .warn: "Warn this long before zero with a short sound and a notification (e.g. 1m)."
        case .snooze:
            "How long the alarm's Snooze button (and, with -b, tocsin snooze) puts it off (1s to 24h; default 5m; "
                + "a calendar alarm's needs -b)."
        case .ring:
            "Ring until the alarm is stopped, snoozed or dismissed, at most this long (0: play the sound once; "
                + "default: 1m, or once without a terminal on standard input)."
        case .soundFile: "A sound file of your own for the alarm (WAV, Ogg, FLAC); one that cannot play rings the theme's sound instead."
        case .volume: "The alarm's volume in dB, -60 to 10 (e.g. -10)."
        case .fade:
            "Raise the alarm from quiet to its volume over this long (at most 5m); with --media, lower the playing "
                + "players' volume over the last this long before zero instead."
        case .pauseMedia: "Pause the media players that play while the alarm rings, and resume them after."
        case .notice:
            "For clock times and calendar alarms: this long before the alarm, a notification saying when it rings, "
                + "with Skip this one (e.g. 30m; default: none)."
        case .warnSound: "The warning before zero is a notification only, with no sound."
        case .media:
            "A sleep timer: at zero pause (or stop) every media player that plays, with no alarm sound; with --fade their "
                + "volume falls first, and is put back after."
        }
    }

    /// What a duration option takes, as its error says it; nil for others.
    var takes: String? {
        switch self {
        case .warn: tr("--warn takes a duration of at most a day (30s, 1m)")
        case .snooze: tr("--snooze takes a duration from 1s to a day (5m, 10m)")
        case .ring: tr("--ring takes a duration of at most an hour (60s, 2m), or 0 to play the sound once")
        case .fade: tr("--fade takes a duration of at most 5 minutes (30s, 1m)")
        case .notice: tr("--notice takes a duration of at most a day (30m, 1h)")
        case .alert, .sound, .live, .soundFile, .volume, .pauseMedia, .warnSound, .media: nil
        }
    }

    /// Throws `takes` unless `time` is a duration above 0 within the limits.
    func check(_ time: TimeSpec?) throws {
        guard let time else { return }
        guard time.isDuration(within: self, aboveZero: true) else { throw ValidationError(takes ?? "") }
    }
}
