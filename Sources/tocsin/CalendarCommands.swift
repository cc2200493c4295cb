import ArgumentParser
import Glibc
import Tocsin
import TocsinBase
import TocsinCLI
import TocsinNotify
import TocsinService

/// A calendar spec on the command line: a bad one is bad usage (exit 2)
/// with one line naming what is wrong and where. Parsed once: `validate`
/// and `run` both make one, and the second is the engine's cache's
/// (`CalendarSpec.parsed(utf8:)`, the specs parsed last by their text).
struct CalendarArgument {
    let text: String
    let spec: CalendarSpec

    init(_ text: String) throws {
        self.text = text
        do {
            spec = try Array(text.utf8).withUnsafeBytes { bytes throws(CalendarSpecError) in
                try CalendarSpec.parsed(utf8: bytes)
            }
        } catch {
            throw ValidationError(tr("bad calendar spec '{spec}': {error}", ["spec": text, "error": "\(error)"]))
        }
    }
}

struct Next: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List a calendar spec's coming occurrences: tocsin next 'Mon..Fri 07:00' --count 3.",
        discussion: """
            The spec is systemd's calendar syntax (systemd.time(7)): weekdays (Mon, Mon..Fri, Sat,Sun), \
            a date Y-M-D (*-*-01, *-12-25, *-*~01 the last day), a time h:m[:s] (07:00, *:0/15, 9..17:00), \
            minutely, hourly, daily, weekly, monthly, yearly, quarterly, semiannually, and an optional zone \
            (UTC, Europe/Berlin; else the local one). A local time a DST change skips rings at the change; \
            one that happens twice rings once. The first line is the normalized form, as systemd-analyze \
            calendar prints it; then one occurrence a line, in the spec's zone, with its offset from UTC. \
            Given a calendar alarm of the timer service instead (tocsin next Wake), its spec's \
            occurrences, those it skips marked "skipped".
            """)

    @Argument(help: ArgumentHelp("The calendar spec (quoted, or as separate words), or a service calendar alarm (id, label or prefix).",
                                 valueName: "spec"))
    var words: [String]

    @Option(help: ArgumentHelp("How many occurrences (1 to 1000).", valueName: "n"))
    var count = 5

    static var countRange: String { tr("--count takes 1 to 1000") }

    @Flag(help: "One JSON object per occurrence: {\"next\": Unix seconds, \"local\": \"...\"}.")
    var json = false

    func validate() throws {
        guard (1...1000).contains(count) else { throw ValidationError(tr("{problem}; got {value}", ["problem": Self.countRange, "value": String(count)])) }
    }

    func run() throws {
        let (argument, skippedUntil) = try Self.specOrAlarm(words.joined(separator: " "))
        guard let zone = argument.spec.zoneRules() else {
            throw CommandFailure(tr("the zone of '{spec}' is no longer installed", ["spec": argument.text]))
        }
        let now = Int64(Glibc.time(nil))
        guard argument.spec.next(after: now, in: zone) != nil else {
            throw CommandFailure(tr("'{spec}' has no occurrence after now", ["spec": argument.text]))
        }
        if !json { Descriptor.say(argument.spec.normalized) }
        var after = now
        for _ in 0..<count {
            guard let next = argument.spec.next(after: after, in: zone) else { break }
            let skipped = next < skippedUntil ?? 0
            if json {  // (systemd's English weekday: a program reads it)
                Descriptor.say(JSON.object([("next", .integer(next)), ("local", .string(zone.wallText(unixSeconds: next)))]
                                           + (skipped ? [("skipped", .bool(true))] : [])).compactEncoded())
            } else {
                Descriptor.say("\(Display.wallText(zone, unixSeconds: next))  " + tr("in {time}", ["time": Display.until(nanoseconds: (next - now) * Nanos.perSecond)])
                               + (skipped ? "  " + tr("skipped") : ""))
            }
            after = next
        }
    }

    /// The spec `text` is, or else the spec and skip of the service's
    /// calendar alarm it names; a text that is neither is the spec's error.
    static func specOrAlarm(_ text: String) throws -> (CalendarArgument, skippedUntil: Int64?) {
        let specError: any Error
        do {
            return (try CalendarArgument(text), nil)
        } catch {
            specError = error
        }
        guard let client = try? ServiceClient(), let timers = try? client.list(),
              let id = try? ServiceTimers.resolve(text, in: timers),
              let alarm = timers.first(where: { $0.id == id }), let spec = alarm.calendar,
              let argument = try? CalendarArgument(spec)
        else { throw specError }
        return (argument, alarm.skippedUntil.map { Int64($0) })
    }
}

struct Every: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Ring at every occurrence of a calendar spec: tocsin every 'Mon..Fri 07:00' Wake.",
        discussion: """
            The spec is as for tocsin next (systemd's calendar syntax). In the foreground the live line \
            shows the label, the next ring and the time until it; each ring shows the desktop alert and \
            plays the alarm sound, and rings on until q, Esc or Ctrl-C. With -b the timer service keeps \
            it, across logins and restarts (tocsin ls lists it, tocsin rm ends it); a ring missed while \
            the service was not running is announced when it comes back.
            """)

    @Argument(help: ArgumentHelp("The calendar spec, quoted: 'Mon..Fri 07:00', '*-*-01 09:00 Europe/Berlin'.", valueName: "spec"))
    var specText: String

    @Argument(help: "A label.")
    var label: [String] = []

    @OptionGroup var finish: FinishOptions

    @Flag(name: [.customShort("b"), .long], help: "Hand the alarm to the timer service and return at once (see tocsin ls).")
    var background = false

    @Flag(inversion: .prefixedNo, help: "Wake the machine from suspend 2 minutes before each ring, where permitted (tocsin doctor says).")
    var wake = true

    @OptionGroup var alarm: AlarmOptions

    func validate() throws {
        _ = try CalendarArgument(specText)
        if alarm.snooze != nil && !background {
            throw ValidationError(tr("--snooze on a calendar alarm is the timer service's: add -b"))
        }
        if background, finish.json {
            throw ValidationError(tr("{option} is for an alarm in the foreground; drop it or -b", ["option": "--json"]))
        }
    }

    /// The alarm settings the options ask for.
    var settings: AlarmSettings { alarm.settings(quiet: finish.quiet, background: background, liveByDefault: false) }

    func run() throws {
        let argument = try CalendarArgument(specText)
        let label = label.isEmpty ? "Alarm" : label.joined(separator: " ")
        if background {
            let client = try ServiceControl.connect(starting: true)
            let options = [("calendar", .text(argument.text)), ("wake", .flag(wake))] + settings.serviceOptions
                + (finish.exec.map { [("exec", ServiceValue.text($0))] } ?? [])
            let id = try client.add(label: label, seconds: 0, options: options)
            // The service's next ring, as it will ring it (not worked out here again).
            let zone = argument.spec.zoneRules() ?? .utc
            let ring = try client.list(columns: ["next"]).first { $0.id == id }?.next
            let next = ring.map { Display.wallText(zone, unixSeconds: Int64($0)) } ?? "?"
            Descriptor.say(tr("{label}: id {id}, {spec}, next {date}", ["label": label, "id": String(id), "spec": argument.spec.normalized, "date": next]))
            return
        }
        var options = finish.countdownOptions
        options.wake = wake
        options.settings = settings
        let status = try CalendarRunner(spec: argument.spec, label: label, options: options).run()
        if status != 0 { throw ExitCode(status) }
    }
}
