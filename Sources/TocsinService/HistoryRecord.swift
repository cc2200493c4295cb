package import Tocsin
import TocsinBase

/// One line of the timer service's history (`history.jsonl`,
/// docs/history.md): what one timer did, when. Written by the service
/// (`HistoryLog`), read by `tocsin log`.
///
/// A line is one JSON object, its members in this order, those without a
/// value left out:
///
///     {"v":1,"at":1764403200.5,"event":"finish","id":3,"label":"Work",
///      "kind":"countdown","duration":1500.0,"started":1764401700.5}
///
/// Readers skip a line whose `v` is above `version` (a newer service's), and
/// ignore members they do not know (added without a new version).
package struct HistoryRecord: Equatable, Sendable {
    /// What happened.
    package enum Event: String, CaseIterable, Sendable {
        /// A countdown ran out, or an alarm (`until`) reached its time.
        case finish
        /// A calendar alarm (`every`) rang, or rang again after a snooze.
        case ring
        /// A timer that rang was snoozed (`snooze`: for how long).
        case snooze
        /// A countdown, alarm or calendar alarm was cancelled, or removed
        /// while it ran or was paused.
        case cancel
        /// A stopwatch was cancelled, or removed while it ran or was
        /// paused: how a stopwatch ends (`duration`: what it measured).
        case stop
    }

    /// The format's version, the `v` of each line. A reader skips lines of
    /// a later one.
    package static let version: Int64 = 1

    /// When it happened, Unix seconds (a finish: when the time ran out,
    /// even if the service noticed later).
    package var at: Double
    package var event: Event
    /// The service's id of the timer (never reused by one state folder).
    package var id: UInt64
    package var label: String
    /// countdown, stopwatch, alarm or calendar (`TimerService.Kind`).
    package var kind: String
    /// Running time, seconds, paused time excluded, since the timer's
    /// previous line (its start, or the snooze it finished after): so a
    /// day's durations add up to the time its timers ran. Countdowns,
    /// alarms and stopwatches; nil for calendar alarms and snoozes.
    package var duration: Double?
    /// When it was started (or snoozed), Unix seconds; nil when unknown (it
    /// started before the service last restarted) and for calendar alarms.
    package var started: Double?
    /// A snooze's length, seconds.
    package var snooze: Double?
    /// Seconds between the finish and when the service could tell of it,
    /// when that was not at once (it ran out while the service was away).
    package var late: Double?
    /// The sandboxed app that made the timer; nil: the user.
    package var owner: String?

    package init(at: Double, event: Event, id: UInt64, label: String, kind: String, duration: Double? = nil,
                 started: Double? = nil, snooze: Double? = nil, late: Double? = nil, owner: String? = nil) {
        self.at = at
        self.event = event
        self.id = id
        self.label = label
        self.kind = kind
        self.duration = duration
        self.started = started
        self.snooze = snooze
        self.late = late
        self.owner = owner
    }

    /// The line's JSON (without its newline).
    package var json: JSON {
        var members: [(String, JSON)] = [("v", .integer(Self.version)), ("at", .number(at)), ("event", .string(event.rawValue)),
                                         ("id", .integer(Int64(clamping: id))), ("label", .string(label)), ("kind", .string(kind))]
        for (name, value) in [("duration", duration), ("started", started), ("snooze", snooze), ("late", late)] {
            if let value { members.append((name, .number(value))) }
        }
        if let owner { members.append(("owner", .string(owner))) }
        return .object(members)
    }

    /// Reads a line's JSON; nil if it is not a history line this version
    /// can read (another version, a member missing or of the wrong type).
    package init?(json: JSON) {
        guard case .integer(let version)? = json["v"], version >= 1, version <= Self.version,
              let at = Self.seconds(json["at"]), case .string(let name)? = json["event"], let event = Event(rawValue: name),
              case .integer(let id)? = json["id"], id >= 0, case .string(let label)? = json["label"],
              case .string(let kind)? = json["kind"]
        else { return nil }
        self.init(at: at, event: event, id: UInt64(id), label: label, kind: kind)
        duration = Self.seconds(json["duration"])
        started = Self.seconds(json["started"])
        snooze = Self.seconds(json["snooze"])
        late = Self.seconds(json["late"])
        if case .string(let owner)? = json["owner"] { self.owner = owner }
    }

    /// A number member (integers too: a line written by hand or by another tool).
    private static func seconds(_ value: JSON?) -> Double? {
        switch value {
        case .number(let number)?: number.isFinite ? number : nil
        case .integer(let number)?: Double(number)
        default: nil
        }
    }
}
