package import Tocsin
import TocsinBase
package import TocsinNotify

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
    /// Nanoseconds between ticks, if given (checked, then not armed: the
    /// service sends no tick signals, so it asks the engine for no ticks).
    package var tick: Int64?
    /// The ticks `tick` may ask for: none (0), or 0.1 s to a day apart.
    package static let tickRange = Nanos.perSecond / 10...86400 * Nanos.perSecond
    package var clock: TimerClock = .boot
    /// Start when that timer finishes.
    package var after: UInt64?
    /// A calendar alarm's spec (kind `calendar`).
    package var calendar: CalendarSpec?
    /// Wake the machine from suspend for it (default: alarms and calendar alarms).
    package var wake = false
    /// Its alarm's settings (the options named after `AlarmSettings.Field`s).
    package var settings = AlarmSettings()
    /// A calendar alarm's rings before this Unix time (seconds) are skipped.
    package var skipUntil: Double?
    /// A shell command run at each finish or ring (`exec`): the user's
    /// only, never a sandboxed app's (`TimerService.add` refuses it).
    package var command: String?

    /// The options `Add` takes (docs/dbus.md).
    package static let optionNames = Set(["kind", "start", "tick", "clock", "after", "calendar", "wake", "skip_until", "exec"]
                                         + AlarmSettings.Field.allCases.map(\.rawValue))

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
        if let calendarText, calendarText.utf8.count > TimerService.Limits.specBytes {
            throw ServiceError(.invalidArgument, "calendar must be at most \(TimerService.Limits.specBytes) bytes")
        }
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
        try settings.read(options: options)
        if let tickSeconds = try Self.number(options["tick"], "tick") {
            guard let tick = Nanos.from(seconds: tickSeconds), tick == 0 || Self.tickRange.contains(tick) else {
                throw ServiceError(.invalidArgument, "tick must be 0 (none) or 0.1 to 86400 seconds, got \(tickSeconds)")
            }
            self.tick = tick
        }
        let clockName = try Self.text(options["clock"], "clock") ?? "boot"
        guard let clock = ["boot": TimerClock.boot, "awake": .awake][clockName] else {
            throw ServiceError(.invalidArgument, "clock must be boot or awake, not '\(clockName)'")
        }
        self.clock = clock
        wake = try Self.flag(options["wake"], "wake") ?? (kind == .alarm || kind == .calendar)
        if wake && (kind == .stopwatch || clock == .awake) {
            throw ServiceError(.invalidArgument, kind == .stopwatch ? "a stopwatch cannot wake the machine: nothing falls due"
                : "an awake timer cannot wake the machine: a suspend does not bring it closer")
        }
        if settings.notice > 0 && kind != .alarm && kind != .calendar {
            throw ServiceError(.invalidArgument, "notice is for alarms (kind alarm or calendar); a countdown's is warn")
        }
        if let media = settings.media, kind == .stopwatch {
            throw ServiceError(.invalidArgument, "media (\(media.name)) is for timers that reach zero; a stopwatch never does")
        }
        skipUntil = try Self.number(options["skip_until"], "skip_until")
        if skipUntil != nil && kind != .calendar {
            throw ServiceError(.invalidArgument, "skip_until is for calendar alarms (the option calendar)")
        }
        command = try Self.text(options["exec"], "exec")
        if let command {
            guard command.contains(where: { !$0.isWhitespace }) else {
                throw ServiceError(.invalidArgument, "exec must be a shell command, not empty")
            }
            if kind == .stopwatch {
                throw ServiceError(.invalidArgument, "a stopwatch never finishes: exec is for countdowns and alarms")
            }
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

    private static func text(_ value: ServiceValue?, _ name: String) throws(ServiceError) -> String? {
        guard let value else { return nil }
        guard case .text(let text) = value else { throw ServiceError(.invalidArgument, "\(name) must be a string (s)") }
        guard text.utf8.count <= TimerService.Limits.textBytes else {
            throw ServiceError(.invalidArgument, "\(name) must be at most \(TimerService.Limits.textBytes) bytes")
        }
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
