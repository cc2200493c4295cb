import ArgumentParser
import Glibc
import TocsinBase
import TocsinCLI
import TocsinNotify
import TocsinService

/// `--sound FILE`, `--volume DB`, `--fade TIME`: the alarm's own sound.
struct ToneOptions: ParsableArguments {
    @Option(name: .customLong("sound"), help: ArgumentHelp(
        "A sound file of your own for the alarm (WAV, Ogg, FLAC); one that cannot play rings the theme's sound instead.",
        valueName: "file"))
    var file: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("The alarm's volume in dB, -60 to 10 (e.g. -10).", valueName: "db"))
    var volume: Double?

    @Option(help: ArgumentHelp("Raise the alarm from quiet to its volume over this long (at most 5m).", valueName: "time"))
    var fade: TimeSpec?

    @Flag(inversion: .prefixedNo, help: "Pause the media players that play while the alarm rings, and resume them after.")
    var pauseMedia = true

    func validate() throws {
        if let file, let problem = Alert.problem(withSoundFile: file) { throw ValidationError(problem) }
        if let volume, !Alert.volumeRange.contains(volume) {
            throw ValidationError(tr("--volume takes -60 to 10 dB, got {volume}", ["volume": String(volume)]))
        }
        if let fade, !fade.isDuration(within: .fade, aboveZero: true) {
            throw ValidationError(Self.fadeRange)
        }
    }

    static var fadeRange: String { tr("--fade takes a duration of at most 5 minutes (30s, 1m)") }

    /// The file as an absolute path (the timer service does not share our folder).
    var absoluteFile: String? {
        guard let file else { return nil }
        if file.hasPrefix("/") { return file }
        guard let folder = getcwd(nil, 0) else { return file }
        defer { free(folder) }
        return String(cString: folder) + "/" + file
    }

    /// Puts these into `settings`.
    func apply(to settings: inout AlarmSettings) {
        settings.soundFile = absoluteFile
        settings.volume = volume ?? 0
        settings.fade = fade?.nanoseconds() ?? 0
        settings.pausesMedia = pauseMedia
    }
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

    static var range: String { tr("--ring takes a duration of at most an hour (60s, 2m), or 0 to play the sound once") }

    /// `--ring`'s check: at most an hour.
    static func check(_ ring: RingLength?) throws {
        if let ring, AlarmSettings.Field.ring.limits?.range.contains(ring.nanoseconds) != true {
            throw ValidationError(range)
        }
    }
}
