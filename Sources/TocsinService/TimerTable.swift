import Tocsin
package import TocsinNotify

/// Timers' properties column by column: `ListColumns`' reply, and the one
/// place that says what each property of `List` and `Changed` holds (those
/// are this table's `rows()`).
///
/// Columns rather than a dictionary per timer because of what D-Bus costs:
/// GDBus converts a message value by value, some 0.5 µs each on each side,
/// and `List`'s `aa{sv}` is 170,000 values for 10,000 timers (240 ms). An
/// array of a fixed-size type (`at`, `ad`, `ay`) is copied whole, so
/// numbers, codes and flags are such arrays, one element per timer; what
/// few timers have (a calendar spec, a sound file, laps) is a list of (id,
/// value) pairs of only those timers. Only labels cost a value per timer.
package struct TimerTable: Equatable, Sendable {
    /// One column's values: dense (one per timer, in the table's order) or
    /// sparse (by id, only the timers that have one, in the table's order).
    package enum Values: Equatable, Sendable {
        /// `at`: ids and counts; 0 where a column says "none" (`after`).
        case ids([UInt64])
        /// `ad`: seconds (or dB); -1 where an `isOptional` column's
        /// property does not apply to the timer (they are never negative
        /// otherwise). Not NaN: `busctl --json` cannot write it.
        case numbers([Double])
        /// `ay`: the codes of `Column.codeNames`, or 0/1 for flags.
        case codes([UInt8])
        /// `as`: one text per timer.
        case texts([String])
        /// `a(ts)`: the timers that have a text, with it. (Pairs, not a
        /// dictionary: `busctl --json` writes only string-keyed ones.)
        case textsByID([(UInt64, String)])
        /// `a(tad)`: the timers that have laps, with them.
        case lapsByID([(UInt64, [Double])])

        package static func == (left: Values, right: Values) -> Bool {
            switch (left, right) {
            case (.ids(let a), .ids(let b)): a == b
            case (.numbers(let a), .numbers(let b)): a == b
            case (.codes(let a), .codes(let b)): a == b
            case (.texts(let a), .texts(let b)): a == b
            case (.textsByID(let a), .textsByID(let b)): a.elementsEqual(b) { $0 == $1 }
            case (.lapsByID(let a), .lapsByID(let b)): a.elementsEqual(b) { $0.0 == $1.0 && $0.1 == $1.1 }
            default: false
            }
        }

        /// How many values a dense column has; nil for a sparse one.
        var count: Int? {
            switch self {
            case .ids(let values): values.count
            case .numbers(let values): values.count
            case .codes(let values): values.count
            case .texts(let values): values.count
            case .textsByID, .lapsByID: nil
            }
        }
    }

    /// A column of `ListColumns`. The alarm settings' columns are their
    /// fields' (`setting`): a new setting gets its column with no case here.
    package enum Column: Hashable, Sendable {
        case id, label, kind, state, clock, elapsed, remaining, duration
        case alarmTime, calendar, next, rangAgo, finishedAgo, finishes, after
        case wake, snoozedUntil, laps
        /// A calendar alarm's rings are skipped until then (Unix seconds).
        case skippedUntil
        /// The sandboxed app that made the timer (left out: the user's).
        case owner
        /// The shell command the service runs at its finishes (`exec`; left out: none).
        case command
        /// An alarm setting, named as its field (`live`, `warn`, `sound_file`, …).
        case setting(AlarmSettings.Field)

        /// Its name in `ListColumns` and `List`.
        package var rawValue: String {
            switch self {
            case .id: "id"
            case .label: "label"
            case .kind: "kind"
            case .state: "state"
            case .clock: "clock"
            case .elapsed: "elapsed"
            case .remaining: "remaining"
            case .duration: "duration"
            case .alarmTime: "alarm_time"
            case .calendar: "calendar"
            case .next: "next"
            case .rangAgo: "rang_ago"
            case .finishedAgo: "finished_ago"
            case .finishes: "finishes"
            case .after: "after"
            case .wake: "wake"
            case .snoozedUntil: "snoozed_until"
            case .laps: "laps"
            case .skippedUntil: "skipped_until"
            case .owner: "owner"
            case .command: "exec"
            case .setting(let field): field.rawValue
            }
        }

        package init?(rawValue: String) {
            guard let column = Self.allCases.first(where: { $0.rawValue == rawValue }) else { return nil }
            self = column
        }

        /// Every column, in `ListColumns`' order (kept as it was when each
        /// came); a setting newer than the list comes after the others.
        package static let allCases: [Column] = {
            let placed: [Column] = [
                .id, .label, .kind, .state, .clock, .elapsed, .remaining, .duration, .alarmTime, .calendar, .next,
                .rangAgo, .finishedAgo, .finishes, .after, .setting(.live), .setting(.warn), .wake, .setting(.snooze),
                .setting(.ring), .setting(.pauseMedia), .setting(.soundFile), .setting(.volume), .setting(.fade),
                .snoozedUntil, .laps, .skippedUntil, .setting(.notice), .setting(.alert), .setting(.sound), .owner,
                .setting(.warnSound), .command,
            ]
            return placed + AlarmSettings.Field.allCases.map(Column.setting).filter { !placed.contains($0) }
        }()

        /// The names a code column's values stand for, by code; nil for a
        /// column of another type. Flags (`live`, `wake`, `pause_media`)
        /// are codes 0 and 1.
        package var codeNames: [String]? {
            switch self {
            case .kind: TimerService.Kind.allCases.map(\.rawValue)  // countdown, stopwatch, alarm, calendar
            case .state: TimerState.allCases.map(\.description)  // tocsin.h's TOCSIN_IDLE … TOCSIN_CANCELED
            case .clock: ["boot", "awake"]  // TOCSIN_CLOCK_BOOT, TOCSIN_CLOCK_AWAKE
            default: nil
            }
        }

        var isFlag: Bool { self == .wake || setting?.unit == .flag }

        /// The alarm setting a column shows, if it is one.
        package var setting: AlarmSettings.Field? {
            if case .setting(let field) = self { field } else { nil }
        }

        /// Number columns whose property only some timers have: -1 for
        /// the others. (A stopwatch has no time left; only alarms have a
        /// time of day; …)
        package var isOptional: Bool {
            switch self {
            case .remaining, .duration, .alarmTime, .next, .rangAgo, .finishedAgo, .snoozedUntil, .skippedUntil: true
            default: false
            }
        }

        /// `volume`, `fade` and `notice`: left out of a timer's properties
        /// in `List` and `Changed` when 0, their default.
        package var isLeftOutAtZero: Bool { [.volume, .fade, .notice].contains(setting) }
    }

    package private(set) var columns: [(Column, Values)]

    package init(_ columns: [(Column, Values)]) {
        self.columns = columns
    }

    package static func == (left: TimerTable, right: TimerTable) -> Bool {
        left.columns.elementsEqual(right.columns) { $0.0 == $1.0 && $0.1 == $1.1 }
    }

    /// The timers' ids, in the table's order (every table has them).
    package var ids: [UInt64] {
        if case .ids(let ids)? = columns.first(where: { $0.0 == .id })?.1 { ids } else { [] }
    }

    /// True if it has ids, every dense column a value for each timer and
    /// every sparse one only timers of the table.
    package var isWellFormed: Bool {
        guard columns.contains(where: { $0.0 == .id }) else { return false }
        let ids = ids, known = Set(ids)
        return columns.allSatisfy { _, values in
            switch values {
            case .textsByID(let byID): byID.allSatisfy { known.contains($0.0) }
            case .lapsByID(let byID): byID.allSatisfy { known.contains($0.0) }
            default: values.count == ids.count
            }
        }
    }

    /// Each timer's properties as `List` and `Changed` carry them: a
    /// property that does not apply to the timer is left out (except
    /// `laps`: empty).
    package func rows() -> [[(String, ServiceValue)]] {
        var rows: [[(String, ServiceValue)]] = []
        rows.reserveCapacity(ids.count)
        forEachRow { rows.append($0) }
        return rows
    }

    /// `rows()` one at a time, in order, without keeping them: `List`
    /// writes each straight into its reply.
    package func forEachRow(_ body: ([(String, ServiceValue)]) -> Void) {
        let sparse = columns.map { _, values -> [UInt64: ServiceValue]? in
            switch values {
            case .textsByID(let byID): Dictionary(byID.map { ($0, .text($1)) }, uniquingKeysWith: { first, _ in first })
            case .lapsByID(let byID): Dictionary(byID.map { ($0, .numbers($1)) }, uniquingKeysWith: { first, _ in first })
            default: nil
            }
        }
        let codeNames = columns.map { $0.0.codeNames }
        var row: [(String, ServiceValue)] = []
        row.reserveCapacity(columns.count)
        for (index, id) in ids.enumerated() {
            row.removeAll(keepingCapacity: true)
            for (position, (column, values)) in columns.enumerated() {
                let value = if let byID = sparse[position] { byID[id] ?? (column == .laps ? .numbers([]) : nil) }
                    else { Self.value(values, index, column, codeNames: codeNames[position]) }
                if let value { row.append((column.rawValue, value)) }
            }
            body(row)
        }
    }

    private static func value(_ values: Values, _ row: Int, _ column: Column, codeNames: [String]?) -> ServiceValue? {
        switch values {
        case .ids(let ids):
            return column == .after && ids[row] == 0 ? nil : .id(ids[row])
        case .numbers(let numbers):
            let number = numbers[row]
            return (column.isOptional && number < 0) || (column.isLeftOutAtZero && number == 0) ? nil : .number(number)
        case .codes(let codes):
            if column.isFlag { return .flag(codes[row] != 0) }
            guard let names = codeNames, Int(codes[row]) < names.count else { return nil }
            return .text(names[Int(codes[row])])
        case .texts(let texts):
            return .text(texts[row])
        case .textsByID, .lapsByID:
            return nil
        }
    }
}

extension TimerTable {
    /// The columns `names` asks for (every column if it is empty), the id
    /// first; nil names the first unknown one.
    package static func columns(named names: [String]) -> Result<[Column], ServiceError> {
        guard !names.isEmpty else { return .success(Column.allCases) }
        var chosen: [Column] = [.id]
        for name in names {
            guard let column = Column(rawValue: name) else {
                return .failure(ServiceError(.invalidArgument,
                    "no column '\(name)'; the columns are \(Column.allCases.map(\.rawValue).joined(separator: ", "))"))
            }
            if !chosen.contains(column) { chosen.append(column) }
        }
        return .success(chosen)
    }
}
