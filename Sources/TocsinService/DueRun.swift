import Tocsin
import TocsinBase

/// A timer's event that runs commands: a hook file named after it
/// (`$XDG_CONFIG_HOME/tocsin/hooks/finish`), and at a finish or ring the
/// timer's own command (`exec`). docs/service-and-command.md lists them.
package enum ScriptEvent: String, CaseIterable, Sendable {
    /// Started (added running, restarted, or started by the one before it
    /// in its sequence).
    case start
    case pause, resume
    /// A countdown ran out, or an alarm reached its clock time (the
    /// history's names: docs/history.md).
    case finish
    /// A calendar alarm rang (a snoozed one too, when it rings again).
    case ring
    case snooze
    case cancel
}

/// A command due to run for an event, kept in the timer's record until it
/// has run (at least once: a service killed before then runs it again at
/// its next start, with `TOCSIN_AGAIN=1`).
struct DueRun: Equatable, Sendable {
    enum Source: String, Sendable {
        /// The timer's own command (`exec`).
        case command = "exec"
        /// The hook file of the event.
        case hook
    }

    var event: ScriptEvent
    var source: Source
    /// When the event was due: a finish's zero, a call's time (Unix seconds).
    var due: Double
    /// Read back from the files at a start: it may have run before.
    var again = false
    /// In memory only: the runner's token once handed to it (0: not yet).
    var token: UInt64 = 0

    /// As the journal keeps it (member `runs_due` of a timer's record).
    var journal: JSON {
        .object([("event", .string(event.rawValue)), ("source", .string(source.rawValue)),
                 ("due_ns", .integer(Nanos.from(seconds: due) ?? 0))])
    }

    /// From the journal; nil for what this version does not know (a newer
    /// event or source: left out rather than run wrongly).
    init?(journal: JSON) {
        guard case .string(let eventName)? = journal["event"], let event = ScriptEvent(rawValue: eventName),
              case .string(let sourceName)? = journal["source"], let source = Source(rawValue: sourceName),
              case .integer(let due)? = journal["due_ns"]
        else { return nil }
        self.init(event: event, source: source, due: Nanos.seconds(due), again: true)
    }

    init(event: ScriptEvent, source: Source, due: Double, again: Bool = false) {
        self.event = event
        self.source = source
        self.due = due
        self.again = again
    }
}
