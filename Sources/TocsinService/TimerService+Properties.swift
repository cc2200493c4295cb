import Tocsin
import TocsinBase
import TocsinNotify

/// Timers' D-Bus properties: `ListColumns`' table, and `List`'s and
/// `Changed`'s dictionaries, which are that table's rows.
extension TimerService {
    typealias Column = TimerTable.Column

    /// The properties `Changed` carries.
    func properties(of entry: Entry) -> [(String, ServiceValue)]? {
        guard let reading = (try? engine.readings(of: [entry.timer]))?.first ?? nil else { return nil }
        return table(of: Listing(entries: [entry], readings: [reading]), Column.allCases).rows().first
    }

    /// Every timer's properties that `caller` may see, in creation order (`List`).
    package func list(for caller: Caller) -> [[(String, ServiceValue)]] {
        table(of: listing(for: caller), Column.allCases).rows()
    }

    /// `List`'s reply, serialized (`PropertyListEncoder`).
    package func serializedList(for caller: Caller) -> [UInt8] {
        PropertyListEncoder.encode(table(of: listing(for: caller), Column.allCases))
    }

    /// The columns `names` (every column if it is empty; `id` always) of
    /// every timer, in creation order (`ListColumns`).
    package func table(_ names: [String], for caller: Caller) throws(ServiceError) -> TimerTable {
        let columns = try TimerTable.columns(named: names).get()
        return table(of: listing(for: caller), columns)
    }

    /// Timers and their readings, side by side.
    private struct Listing {
        var entries: [Entry]
        var readings: [TimerReading]
        var count: Int { entries.count }
        var indices: Range<Int> { 0..<count }
    }

    /// Every timer with its reading, in creation order, read in one engine
    /// call. Arrays sized up front: at 10,000 timers, growing them (an
    /// entry is large) cost more than reading the engine.
    private func listing(for caller: Caller) -> Listing {
        let ids = caller.app == nil ? entries.keys.sorted() : entries.values.filter { caller.owns($0.owner) }.map(\.id).sorted()
        var listed: [Entry] = []
        listed.reserveCapacity(ids.count)
        for id in ids { if let entry = entries[id] { listed.append(entry) } }
        guard let readings = try? engine.readings(of: listed.map(\.timer)) else { return Listing(entries: [], readings: []) }
        var read: [TimerReading] = []
        read.reserveCapacity(readings.count)
        for reading in readings { if let reading { read.append(reading) } }
        guard read.count < listed.count else { return Listing(entries: listed, readings: read) }
        // (A timer the engine no longer has: none in practice.)
        return Listing(entries: zip(listed, readings).filter { $0.1 != nil }.map(\.0), readings: read)
    }

    private func table(of listing: Listing, _ columns: [Column]) -> TimerTable {
        let now = Nanos.seconds(Clocks.realtime())
        return TimerTable(columns.map { ($0, values(of: $0, listing, now: now)) })
    }

    /// One column: see `TimerTable.Values` for what stands for "none".
    private func values(of column: Column, _ listing: Listing, now: Double) -> TimerTable.Values {
        let entries = listing.entries, readings = listing.readings
        func each<T>(_ value: (Entry, TimerReading) -> T) -> [T] {
            listing.indices.map { value(entries[$0], readings[$0]) }
        }
        let none = -1.0  // (an optional column's "does not apply")
        func seconds(_ value: (Entry, TimerReading) -> Int64?) -> TimerTable.Values {
            .numbers(each { value($0, $1).map(Nanos.seconds) ?? none })
        }
        func flags(_ value: (Entry, TimerReading) -> Bool) -> TimerTable.Values {
            .codes(each { value($0, $1) ? 1 : 0 })
        }
        /// A calendar alarm's time (its coming occurrence), or nil.
        func occurrence(_ reading: TimerReading) -> Int64? { reading.calendar == nil ? nil : reading.alarmTime }
        switch column {
        case .id: return .ids(entries.map(\.id))
        case .label: return .texts(readings.map(\.label))
        case .kind: return .codes(entries.map(\.kind.code))
        case .state: return .codes(readings.map { UInt8(truncatingIfNeeded: $0.state.rawValue) })
        case .clock: return .codes(readings.map { $0.clock == .awake ? 1 : 0 })
        case .elapsed: return seconds { $1.elapsed }
        case .remaining: return seconds { $1.duration == nil ? nil : $1.remaining }
        case .duration: return seconds { $1.remaining == nil ? nil : $1.duration }
        case .alarmTime: return seconds { $1.alarmTime }
        case .calendar:
            return .textsByID(listing.indices.compactMap { row in
                guard occurrence(readings[row]) != nil, let spec = readings[row].calendar else { return nil }
                return (entries[row].id, spec.normalized)
            })
        case .next: return seconds { occurrence($1) }
        case .rangAgo:
            return .numbers(each { entry, reading in
                guard occurrence(reading) != nil, let rang = entry.finishedAt else { return none }
                return max(0, now - rang)
            })
        case .finishedAgo:
            return .numbers(each { entry, reading in
                guard reading.state == .finished, let finishedAt = entry.finishedAt else { return none }
                return max(0, now - finishedAt)
            })
        case .finishes: return .ids(entries.map(\.finishes))
        case .after: return .ids(entries.map { $0.after ?? 0 })
        case .wake: return flags { $1.wakes }
        case .setting(let field): return Self.settingValues(field, entries.map(\.id), entries.map(\.settings))
        case .snoozedUntil: return .numbers(entries.map { $0.snoozedUntil ?? none })
        case .skippedUntil: return seconds { $1.skippedUntil }
        case .owner: return .textsByID(entries.compactMap { entry in entry.owner.map { (entry.id, $0) } })
        case .command: return .textsByID(entries.compactMap { entry in entry.command.map { (entry.id, $0) } })
        case .laps:
            return .lapsByID(listing.indices.compactMap { row in
                readings[row].laps.isEmpty ? nil : (entries[row].id, readings[row].laps.map(Nanos.seconds))
            })
        }
    }
}

extension TimerService {
    /// A column of an alarm setting, coded by its unit: flags as codes 0
    /// and 1, durations in seconds, sound files by id (none: left out).
    static func settingValues(_ field: AlarmSettings.Field, _ ids: [UInt64], _ settings: [AlarmSettings]) -> TimerTable.Values {
        switch field.unit {
        case .flag:
            return .codes(settings.map { $0[field] == .flag(true) ? 1 : 0 })
        case .nanoseconds, .decibels:
            return .numbers(settings.map {
                switch $0[field] {
                case .nanoseconds(let nanoseconds): Nanos.seconds(nanoseconds)
                case .decibels(let decibels): decibels
                default: 0
                }
            })
        case .text, .choice:
            return .textsByID(zip(ids, settings).compactMap { id, settings in
                guard case .text(let text) = settings[field], !text.isEmpty else { return nil }
                return (id, text)
            })
        }
    }
}

extension TimerService.Kind {
    /// Its code in `ListColumns`' `kind` column (its place in `allCases`).
    var code: UInt8 {
        switch self {
        case .countdown: 0
        case .stopwatch: 1
        case .alarm: 2
        case .calendar: 3
        }
    }
}
