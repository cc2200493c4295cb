import Tocsin
import TocsinBase

/// The service's own members of a timer's record, beside `id`, `kind`, the
/// alarm settings (`AlarmSettings.journalMembers`) and `engine`: one table,
/// which both writes and reads them, as the settings are coded field by field.
extension TimerService.Entry {
    struct JournalMember: Sendable {
        let name: String
        /// Its value in a record; nil: left out (its absence means the default).
        let write: @Sendable (TimerService.Entry) -> JSON?
        /// Takes the record's value (nil: absent) into the entry.
        let read: @Sendable (inout TimerService.Entry, JSON?) -> Void
    }

    /// In the order written; read in the same order (`finishes` and
    /// `announced` look at what `finished_at_ns` gave).
    static let journalMembers: [JournalMember] = [
        JournalMember(name: "owner", write: { $0.owner.map(JSON.string) }) { entry, value in  // absent: the user's
            if case .string(let owner)? = value { entry.owner = owner }
        },
        JournalMember(name: "notification", write: { $0.notification.map { .integer(Int64($0)) } }) { entry, value in
            if case .integer(let id)? = value, let known = UInt32(exactly: id) { entry.notification = known }
        },
        JournalMember(name: "after", write: { $0.after.map { .integer(Int64(clamping: $0)) } }) { entry, value in
            if case .integer(let other)? = value, let id = UInt64(exactly: other) { entry.after = id }
        },
        JournalMember(name: "finished_at_ns", write: { $0.finishedAt.map { .integer(Nanos.from(seconds: $0) ?? 0) } }) { entry, value in
            if case .integer(let at)? = value { entry.finishedAt = Nanos.seconds(at) }
        },
        JournalMember(name: "finishes", write: { $0.finishes > 0 ? .integer(Int64(clamping: $0.finishes)) : nil }) { entry, value in
            if case .integer(let count)? = value, count >= 0 {
                entry.finishes = UInt64(count)
            } else if entry.finishedAt != nil {
                entry.finishes = 1  // written before 0.6.1: a finished timer had finished once, announced
            }
        },
        JournalMember(name: "announced", write: { $0.announced ? nil : .bool(false) }) { entry, value in  // absent: announced
            if case .bool(false)? = value, entry.finishedAt != nil { entry.announced = false }
        },
        JournalMember(name: "snoozed_until_ns", write: { $0.snoozedUntil.map { .integer(Nanos.from(seconds: $0) ?? 0) } }) { entry, value in
            if case .integer(let until)? = value, entry.kind == .calendar { entry.snoozedUntil = Nanos.seconds(until) }
        },
        JournalMember(name: "exec", write: { $0.command.map(JSON.string) }) { entry, value in
            if case .string(let command)? = value, !command.isEmpty { entry.command = command }
        },
        JournalMember(name: "runs_due", write: { $0.runsDue.isEmpty ? nil : .array($0.runsDue.map(\.journal)) }) { entry, value in
            if case .array(let runs)? = value { entry.runsDue = runs.compactMap(DueRun.init(journal:)) }
        },
    ]

    /// These members of the entry, as a record holds them.
    var ownJournalMembers: [(String, JSON)] {
        Self.journalMembers.compactMap { member in member.write(self).map { (member.name, $0) } }
    }

    /// Takes these members from `record` into the entry.
    mutating func readOwnJournalMembers(from record: JSON) {
        for member in Self.journalMembers { member.read(&self, record[member.name]) }
    }
}
