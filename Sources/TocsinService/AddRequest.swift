package import Tocsin
import TocsinBase
import TocsinNotify

/// An `Add` call's arguments, decoded from its options and checked: what the
/// service needs to create the timer, or the reason it cannot. Free of the
/// bus and the engine, so each rule is tested on its own.
package struct AddRequest: Equatable, Sendable {
    package var label: String
    package var kind: TimerService.Kind
    /// A countdown's length, or an alarm's Unix time, in nanoseconds (0 for
    /// a stopwatch).
    package var nanoseconds: Int64
    /// Start at once (unless it waits for `after`).
    package var start = true
    package var alert = true
    package var sound = true
    /// A live notification while it runs or is paused.
    package var live = true
    /// Nanoseconds before zero to warn (0: no warning).
    package var warn: Int64 = 0
    /// Nanoseconds between ticks, if given.
    package var tick: Int64?
    package var clock: TimerClock = .boot
    /// Start when that timer finishes.
    package var after: UInt64?
    /// A calendar alarm's spec (kind `calendar`).
    package var calendar: CalendarSpec?
    /// Wake the machine from suspend for it (default: alarms and calendar alarms).
    package var wake = false
    /// How long its Snooze puts it off, in nanoseconds.
    package var snooze = TimerService.defaultSnooze
    /// How long the alarm sound rings unless stopped, in nanoseconds (0: once).
    package var ring = TimerService.defaultRing
    /// The alarm's own sound file (an absolute path), volume (dB) and fade
    /// (nanoseconds, 0: none).
    package var soundFile: String?
    package var volume = 0.0
    package var fade: Int64 = 0
    /// Pause the media players while the alarm rings.
    package var pauseMedia = true

    /// The options `Add` takes (docs/dbus.md).
    package static let optionNames: Set<String> = ["kind", "start", "tick", "alert", "sound", "live", "warn", "clock", "after", "calendar", "wake", "snooze", "ring", "sound_file", "volume", "fade", "pause_media"]

    /// Decodes `Add(label, seconds, options)`. `exists` says whether a timer
    /// id names a timer of the service (for `after`).
    ///
    /// - Throws: `.invalidArgument` naming the option or value at fault;
    ///   `.noSuchTimer` for an `after` that names no timer.
    package init(label: String, seconds: Double, options: [String: ServiceValue],
                 exists: (UInt64) -> Bool) throws(ServiceError) {
        let known = Self.optionNames
        if let unknown = options.keys.sorted().first(where: { !known.contains($0) }) {
            throw ServiceError(.invalidArgument, "unknown option '\(unknown)' (known: \(known.sorted().joined(separator: ", ")))")
        }
        let calendarText = try Self.text(options["calendar"], "calendar")
        let kindName = try Self.text(options["kind"], "kind") ?? (calendarText == nil ? "countdown" : "calendar")
        guard let kind = TimerService.Kind(rawValue: kindName) else {
            throw ServiceError(.invalidArgument, "kind must be countdown, stopwatch, alarm or calendar, not '\(kindName)'")
        }
        guard (kind == .calendar) == (calendarText != nil) else {
            throw ServiceError(.invalidArgument, kind == .calendar
                ? "a calendar alarm needs the option calendar (its spec, e.g. 'Mon..Fri 07:00')"
                : "the option calendar makes a calendar alarm: drop kind '\(kindName)' or the option")
        }
        if let calendarText {
            do throws(CalendarSpecError) {
                calendar = try CalendarSpec(parsing: calendarText)
            } catch {
                throw ServiceError(.invalidArgument, "bad calendar spec '\(calendarText)': \(error)")
            }
        }
        self.label = label
        self.kind = kind
        nanoseconds = 0
        start = try Self.flag(options["start"], "start") ?? true
        alert = try Self.flag(options["alert"], "alert") ?? true
        sound = try Self.flag(options["sound"], "sound") ?? true
        live = try Self.flag(options["live"], "live") ?? true
        pauseMedia = try Self.flag(options["pause_media"], "pause_media") ?? true
        let warnSeconds = try Self.number(options["warn"], "warn") ?? 0
        guard warnSeconds <= 86400, let warn = Nanos.from(seconds: warnSeconds) else {
            throw ServiceError(.invalidArgument, "warn must be at most 86400 seconds")
        }
        self.warn = warn
        if let tickSeconds = try Self.number(options["tick"], "tick") {
            guard let tick = Nanos.from(seconds: tickSeconds) else { throw ServiceError(TocsinError.invalidArgument) }
            self.tick = tick
        }
        let clockName = try Self.text(options["clock"], "clock") ?? "boot"
        guard let clock = ["boot": TimerClock.boot, "awake": .awake][clockName] else {
            throw ServiceError(.invalidArgument, "clock must be boot or awake, not '\(clockName)'")
        }
        self.clock = clock
        if let snoozeSeconds = try Self.number(options["snooze"], "snooze") {
            snooze = try Self.snoozeLength(snoozeSeconds)
        }
        if let ringSeconds = try Self.number(options["ring"], "ring") {
            guard ringSeconds <= 3600, let ring = Nanos.from(seconds: ringSeconds) else {
                throw ServiceError(.invalidArgument, "ring must be at most 3600 seconds (0: play the sound once), got \(ringSeconds)")
            }
            self.ring = ring
        }
        if let file = try Self.text(options["sound_file"], "sound_file") {
            guard file.hasPrefix("/") else {
                throw ServiceError(.invalidArgument, "sound_file must be an absolute path (the service's folder is not yours), got '\(file)'")
            }
            if let problem = Alert.problem(withSoundFile: file) { throw ServiceError(.invalidArgument, problem) }
            soundFile = file
        }
        if let value = options["volume"] {
            guard case .number(let decibels) = value, Alert.volumeRange.contains(decibels) else {
                throw ServiceError(.invalidArgument, "volume must be -60 to +10 dB (d)")
            }
            volume = decibels
        }
        if let fadeSeconds = try Self.number(options["fade"], "fade") {
            guard fadeSeconds <= 300, let fade = Nanos.from(seconds: fadeSeconds) else {
                throw ServiceError(.invalidArgument, "fade must be at most 300 seconds, got \(fadeSeconds)")
            }
            self.fade = fade
        }
        wake = try Self.flag(options["wake"], "wake") ?? (kind == .alarm || kind == .calendar)
        if wake && (kind == .stopwatch || clock == .awake) {
            throw ServiceError(.invalidArgument, kind == .stopwatch ? "a stopwatch cannot wake the machine: nothing falls due"
                : "an awake timer cannot wake the machine: a suspend does not bring it closer")
        }
        if case .id(let other)? = options["after"] {
            guard exists(other) else { throw ServiceError(.noSuchTimer, "no timer \(other) to start after") }
            after = other
        } else if options["after"] != nil {
            throw ServiceError(.invalidArgument, "after must be a timer id (t)")
        }
        guard label.utf8.count <= TimerEngine.maxLabelBytes else {
            throw ServiceError(.invalidArgument, "the label is longer than \(TimerEngine.maxLabelBytes) bytes")
        }
        let nanoseconds = Nanos.from(seconds: seconds)  // a countdown's length, an alarm's Unix time
        switch kind {
        case .countdown:
            guard let nanoseconds, nanoseconds > 0 else {
                throw ServiceError(.invalidArgument, "seconds must be a finite number above 0, at most 100 years; got \(seconds)")
            }
            self.nanoseconds = nanoseconds
        case .alarm:
            guard let nanoseconds, nanoseconds >= 0 else {
                throw ServiceError(.invalidArgument, "an alarm's time must be a Unix time (seconds since 1970), got \(seconds)")
            }
            self.nanoseconds = nanoseconds
        case .stopwatch, .calendar:
            break  // a calendar alarm's times are its spec's: seconds is not read
        }
    }

    /// A snooze's length in nanoseconds: 1 s to 24 h.
    package static func snoozeLength(_ seconds: Double) throws(ServiceError) -> Int64 {
        guard seconds.isFinite, seconds >= 1, seconds <= 86400, let nanoseconds = Nanos.from(seconds: seconds) else {
            throw ServiceError(.invalidArgument, "snooze must be 1 to 86400 seconds (24 h), got \(seconds)")
        }
        return nanoseconds
    }

    private static func text(_ value: ServiceValue?, _ name: String) throws(ServiceError) -> String? {
        guard let value else { return nil }
        guard case .text(let text) = value else { throw ServiceError(.invalidArgument, "\(name) must be a string (s)") }
        return text
    }

    private static func flag(_ value: ServiceValue?, _ name: String) throws(ServiceError) -> Bool? {
        guard let value else { return nil }
        guard case .flag(let flag) = value else { throw ServiceError(.invalidArgument, "\(name) must be a boolean (b)") }
        return flag
    }

    private static func number(_ value: ServiceValue?, _ name: String) throws(ServiceError) -> Double? {
        guard let value else { return nil }
        guard case .number(let number) = value, number.isFinite, number >= 0 else {
            throw ServiceError(.invalidArgument, "\(name) must be a number of seconds >= 0 (d)")
        }
        return number
    }
}
