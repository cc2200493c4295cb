import ArgumentParser
import Glibc
import TocsinBase
import TocsinCLI
import TocsinNotify
import TocsinService

/// The alarm's options, the same for a countdown (`tocsin 25m`) and a
/// calendar alarm (`tocsin every`): each declared once, its help and its
/// range error from its `AlarmSettings.Field` (AlarmSettings+Wording.swift).
/// A countdown's `--warn` and `--no-sound`/`--no-alert` are its own.
struct AlarmOptions: ParsableArguments {
    @Flag(inversion: .prefixedNo, help: ArgumentHelp(AlarmSettings.Field.live.help))
    var live: Bool?

    @Option(help: ArgumentHelp(AlarmSettings.Field.notice.help, valueName: "time"))
    var notice: TimeSpec?

    @Option(help: ArgumentHelp(AlarmSettings.Field.snooze.help, valueName: "time"))
    var snooze: TimeSpec?

    @Option(help: ArgumentHelp(AlarmSettings.Field.ring.help, valueName: "time"))
    var ring: RingLength?

    @Option(name: .customLong("sound"), help: ArgumentHelp(AlarmSettings.Field.soundFile.help, valueName: "file"))
    var file: String?

    @Option(parsing: .unconditional, help: ArgumentHelp(AlarmSettings.Field.volume.help, valueName: "db"))
    var volume: Double?

    @Option(help: ArgumentHelp(AlarmSettings.Field.fade.help, valueName: "time"))
    var fade: TimeSpec?

    @Flag(inversion: .prefixedNo, help: ArgumentHelp(AlarmSettings.Field.pauseMedia.help))
    var pauseMedia = true

    @Option(help: ArgumentHelp(AlarmSettings.Field.media.help, valueName: "pause|stop"))
    var media: MediaWord?

    func validate() throws {
        try AlarmSettings.Field.snooze.check(snooze)
        try AlarmSettings.Field.notice.check(notice)
        try AlarmSettings.Field.fade.check(fade)
        if let ring, AlarmSettings.Field.ring.limits?.range.contains(ring.nanoseconds) != true {
            throw ValidationError(AlarmSettings.Field.ring.takes ?? "")
        }
        if let file, let problem = Alert.problem(withSoundFile: file) { throw ValidationError(problem) }
        if let volume, !Alert.volumeRange.contains(volume) {
            throw ValidationError(tr("--volume takes -60 to 10 dB, got {volume}", ["volume": String(volume)]))
        }
        // A sleep timer rings nothing: options of the alarm's sound would be ignored.
        if media != nil, let (name, _) = [("--sound", file != nil), ("--ring", ring != nil), ("--volume", volume != nil)].first(where: { $0.1 }) {
            throw ValidationError(tr("{option} is for the alarm's sound, and a timer with --media plays none; drop one of them",
                                     ["option": name]))
        }
    }

    /// The settings these ask for. `quiet`: no alert and no sound;
    /// `background`: for the timer service (the ring's default is then
    /// the service's); `liveByDefault`: `--live` when neither it nor
    /// `--no-live` is given.
    func settings(quiet: Bool, background: Bool, liveByDefault: Bool) -> AlarmSettings {
        var settings = AlarmSettings()
        (settings.popup, settings.sound) = (!quiet, !quiet && media == nil)  // a sleep timer plays no sound
        settings.live = live ?? liveByDefault
        settings.notice = notice?.nanoseconds() ?? 0
        settings.snooze = snooze?.nanoseconds() ?? AlarmSettings.defaultSnooze
        // The service's ring with -b; in the foreground a minute where
        // someone at the terminal can stop it, once where nobody is (a
        // script: it would hold it up).
        settings.ring = ring?.nanoseconds ?? (background || isatty(0) == 1 ? AlarmSettings.defaultRing : 0)
        settings.soundFile = absoluteFile
        settings.volume = volume ?? 0
        settings.fade = fade?.nanoseconds() ?? 0
        settings.pausesMedia = pauseMedia
        settings.media = media?.action
        return settings
    }

    /// The file as an absolute path (the timer service does not share our folder).
    var absoluteFile: String? {
        guard let file else { return nil }
        if file.hasPrefix("/") { return file }
        guard let folder = getcwd(nil, 0) else { return file }
        defer { free(folder) }
        return String(cString: folder) + "/" + file
    }
}

/// `--media pause|stop`'s value: a wrong word is a usage error listing these.
struct MediaWord: ExpressibleByArgument {
    let action: MediaAction

    init?(argument: String) {
        guard let action = MediaAction(name: argument) else { return nil }
        self.action = action
    }

    static var allValueStrings: [String] { ["pause", "stop"] }
}

/// `--ring`'s value: a duration, or 0 (play the sound once), which is no
/// time a countdown takes.
struct RingLength: ExpressibleByArgument {
    let nanoseconds: Int64

    init?(argument: String) {
        if ["0", "0s", "0m"].contains(argument) {
            nanoseconds = 0
        } else if case .duration(let nanoseconds)? = TimeSpec.parse(argument) {
            self.nanoseconds = nanoseconds
        } else {
            return nil
        }
    }
}
