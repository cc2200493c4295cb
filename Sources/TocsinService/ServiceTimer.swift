package import Tocsin
import Synchronization

/// A timer of the service as its clients read it: the properties the
/// command uses, typed, and every property by name for `ls --json` (which
/// prints the ones newer than this command too).
///
/// Made from `ListColumns`' typed columns (`timers(in:)`: the typed fields
/// straight from the arrays; the by-name properties only if asked for),
/// or from a property dictionary (`List` of an older service, `Changed`).
package struct ServiceTimer: Sendable {
    package var id: UInt64 = 0
    package var label = ""
    /// countdown, stopwatch, alarm or calendar (nil if not given, or a kind
    /// newer than this client).
    package var kind: TimerService.Kind?
    /// idle, running, suspended, finished or canceled (nil if not given).
    package var state: TimerState?
    /// Seconds.
    package var elapsed = 0.0
    /// Seconds; nil for a stopwatch.
    package var remaining: Double?
    package var duration: Double?
    /// A calendar alarm's spec, while it has a coming ring.
    package var calendar: String?
    /// Seconds since it finished, or since a calendar alarm rang.
    package var finishedAgo: Double?
    package var rangAgo: Double?
    /// How long its alarm rings, in seconds (0: once).
    package var ring: Double?
    /// The timer it waits for in a sequence.
    package var after: UInt64?
    /// The sandboxed app that made it; nil: the user.
    package var owner: String?
    /// A calendar alarm's coming ring, and until when its rings are
    /// skipped (Unix seconds).
    package var next: Double?
    package var skippedUntil: Double?
    /// The shell command the service runs at its finishes (`exec`).
    package var command: String?

    /// Where the by-name properties come from.
    private enum Source: Sendable {
        case table(TableRows, row: Int)
        case properties([String: ServiceValue])
    }

    /// A table's rows by name, made once for all its timers when the first
    /// is asked (`ls --json`), not for the typed fields alone.
    private final class TableRows: Sendable {
        let table: TimerTable
        private let made = Mutex<[[(String, ServiceValue)]]?>(nil)
        init(_ table: TimerTable) { self.table = table }

        func row(_ index: Int) -> [(String, ServiceValue)] {
            made.withLock { rows in
                if rows == nil { rows = table.rows() }
                return rows?[index] ?? []
            }
        }
    }

    private var source: Source

    /// From properties by name (`List`'s and `Changed`'s dictionaries).
    package init(_ properties: [String: ServiceValue]) {
        source = .properties(properties)
        for (name, value) in properties { take(name, value) }
    }

    /// Each timer of a `ListColumns` table, in its order.
    package static func timers(in table: TimerTable) -> [ServiceTimer] {
        let rows = TableRows(table)
        var timers = table.ids.indices.map { ServiceTimer(source: .table(rows, row: $0)) }
        for (column, values) in table.columns {
            switch values {
            case .ids(let ids):
                for row in timers.indices { timers[row].take(column, .id(ids[row])) }
            case .numbers(let numbers):
                for row in timers.indices where !(column.isOptional && numbers[row] < 0) {
                    timers[row].take(column, .number(numbers[row]))
                }
            case .codes(let codes):
                guard let names = column.codeNames else { continue }
                for row in timers.indices where Int(codes[row]) < names.count {
                    timers[row].take(column, .text(names[Int(codes[row])]))
                }
            case .texts(let texts):
                for row in timers.indices { timers[row].take(column, .text(texts[row])) }
            case .textsByID(let byID):
                let rows = Dictionary(table.ids.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
                for (id, text) in byID { if let row = rows[id] { timers[row].take(column, .text(text)) } }
            case .lapsByID:
                break  // (by name only)
            }
        }
        return timers
    }

    private init(source: Source) {
        self.source = source
    }

    private mutating func take(_ column: TimerTable.Column, _ value: ServiceValue) {
        take(column.rawValue, value)
    }

    private mutating func take(_ name: String, _ value: ServiceValue) {
        switch (name, value) {
        case ("id", .id(let id)): self.id = id
        case ("label", .text(let text)): label = text
        case ("kind", .text(let text)): kind = TimerService.Kind(rawValue: text)
        case ("state", .text(let text)): state = TimerState.allCases.first { $0.description == text }
        case ("elapsed", .number(let seconds)): elapsed = seconds
        case ("remaining", .number(let seconds)): remaining = seconds
        case ("duration", .number(let seconds)): duration = seconds
        case ("calendar", .text(let text)): calendar = text
        case ("finished_ago", .number(let seconds)): finishedAgo = seconds
        case ("rang_ago", .number(let seconds)): rangAgo = seconds
        case ("ring", .number(let seconds)): ring = seconds
        case ("after", .id(let id)): after = id == 0 ? nil : id
        case ("owner", .text(let app)): owner = app.isEmpty ? nil : app
        case ("next", .number(let seconds)): next = seconds
        case ("skipped_until", .number(let seconds)): skippedUntil = seconds
        case ("exec", .text(let text)): command = text.isEmpty ? nil : text
        default: break
        }
    }

    /// Every property by name, as `List` would give it.
    package var properties: [String: ServiceValue] {
        switch source {
        case .properties(let properties):
            return properties
        case .table(let rows, let row):
            return Dictionary(rows.row(row), uniquingKeysWith: { first, _ in first })
        }
    }

    /// Idle until the timer before it in its sequence finishes.
    package var isWaiting: Bool { state == .idle && after != nil }
    /// Finished or cancelled.
    package var isOver: Bool { state == .finished || state == .canceled }
    /// Running or paused.
    package var isLive: Bool { state == .running || state == .suspended }
}

extension ServiceTimer: ExpressibleByDictionaryLiteral {
    /// Properties by name (tests' made-up timers).
    package init(dictionaryLiteral elements: (String, ServiceValue)...) {
        self.init(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}
