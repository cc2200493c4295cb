import ArgumentParser
import Glibc
import Tocsin
import TocsinBase
import TocsinCLI
import TocsinService

/// `tocsin skip TIMER [--count N | --until DATE | --clear]`: the timer
/// service's calendar alarm stays, and its coming rings do not sound.
struct Skip: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Skip a calendar alarm's next ring, its next few, or every one before a date; it stays, and rings after.",
        discussion: """
            tocsin skip Wake skips the next ring; --count 3 the next three; --until 2026-12-27 (or \
            '2026-12-27 18:00', optionally with a zone after it: '2026-12-27 Asia/Tokyo') every ring \
            before then, read in the alarm's own zone unless one is given. A skipped ring does not sound, \
            does not wake the machine and is not reported missed; tocsin ls shows the coming ring and the \
            skip. --clear undoes it. The skip is the service's: it survives restarts and clock changes.
            """)

    @Argument(help: "The calendar alarm (id, label or a label's unique prefix).")
    var timer: String

    @Option(help: ArgumentHelp("Skip this many rings, from the coming one (1 to 100000; default 1).", valueName: "n"))
    var count: Int?

    @Option(help: ArgumentHelp("Skip every ring before this date: 2026-12-27, '2026-12-27 18:00'.", valueName: "date"))
    var until: String?

    @Flag(help: "Undo the skip: the alarm rings at its next occurrence again.")
    var clear = false

    func validate() throws {
        guard [count != nil, until != nil, clear].count(where: { $0 }) <= 1 else {
            throw ValidationError(tr("--count, --until and --clear are three different skips: give one"))
        }
        if let count, !(1...TimerEngine.maxSkippedRings).contains(count) {
            throw ValidationError(tr("--count takes 1 to {most} rings; got {count}", ["most": String(TimerEngine.maxSkippedRings), "count": String(count)]))
        }
    }

    func run() throws {
        let client = try ServiceControl.connect()
        // What naming it takes (ServiceTimers.resolve: a sequence's current
        // round by its state and `after`), and what skipping it takes.
        let timers = try client.list(columns: ["label", "state", "after", "kind", "calendar"])
        let id = try ServiceTimers.resolve(timer, in: timers)
        guard let alarm = timers.first(where: { $0.id == id }), alarm.kind == .calendar else {
            throw CommandFailure(tr("{label} is not a calendar alarm: only those have rings to skip (tocsin every -b makes one)",
                                    ["label": ServiceTimers.label(of: id, in: timers)]))
        }
        if let until {
            let zone = alarm.calendar.flatMap { try? CalendarSpec(parsing: $0, checkingZone: false) }?.zone
            let time = try SkipDate.unixSeconds(until, alarmZone: zone, now: Int64(Glibc.time(nil)))
            try client.skip(id, until: Double(time))
        } else {
            try client.skip(id, count: clear ? 0 : UInt32(count ?? 1))
        }
        let after = try client.list(columns: ["next", "skipped_until"]).first { $0.id == id }
        Descriptor.say(Self.summary(label: alarm.label.isEmpty ? String(id) : alarm.label, after: after))
    }

    /// "Wake: next ring Mon 2026-12-28 07:00 (skipped until Mon 2026-12-28 00:00)".
    static func summary(label: String, after: ServiceClient.Timer?) -> String {
        let next = after?.next.map { Display.localDate(unixSeconds: Int64($0)) } ?? tr("none")
        guard let until = after?.skippedUntil else { return tr("{label}: next ring {date}", ["label": label, "date": next]) }
        return tr("{label}: next ring {date} (rings skipped until {until})",
                  ["label": label, "date": next, "until": Display.localDate(unixSeconds: Int64(until))])
    }
}
