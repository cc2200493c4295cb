import Tocsin
import TocsinBase
package import TocsinNotify

/// The alarm settings as the service's `Add` options carry them (docs/dbus.md)
/// and as its journal records them (see `ServiceStore`), field by field.
extension AlarmSettings {
    /// The settings `options` give (an option per `Field`, by its name);
    /// the others stay as they are. Other options are not looked at.
    ///
    /// - Throws: `.invalidArgument` naming the option and what it takes.
    package mutating func read(options: [String: ServiceValue]) throws(ServiceError) {
        for field in Field.allCases {
            guard let option = options[field.rawValue] else { continue }
            self[field] = try Self.value(of: option, for: field)
        }
    }

    /// `option` as `field`'s value, checked against its limits.
    package static func value(of option: ServiceValue, for field: Field) throws(ServiceError) -> Value {
        let name = field.rawValue
        switch field.unit {
        case .flag:
            guard case .flag(let on) = option else { throw ServiceError(.invalidArgument, "\(name) must be a boolean (b)") }
            return .flag(on)
        case .nanoseconds:
            guard case .number(let seconds) = option, seconds.isFinite, seconds >= 0 else {
                throw ServiceError(.invalidArgument, "\(name) must be a number of seconds >= 0 (d)")
            }
            guard let nanoseconds = Nanos.from(seconds: seconds),
                  problem(with: .nanoseconds(nanoseconds), for: field) == nil
            else { throw ServiceError(.invalidArgument, "\(name) must be \(field.limits?.said ?? "shorter"), got \(seconds)") }
            return .nanoseconds(nanoseconds)
        case .text:
            guard case .text(let path) = option else { throw ServiceError(.invalidArgument, "\(name) must be a string (s)") }
            guard path.utf8.count <= TimerService.Limits.textBytes else {
                throw ServiceError(.invalidArgument, "\(name) must be at most \(TimerService.Limits.textBytes) bytes")
            }
            guard path.hasPrefix("/") else {
                throw ServiceError(.invalidArgument, "\(name) must be an absolute path (the service's folder is not yours), got '\(path)'")
            }
            if let problem = Alert.problem(withSoundFile: path) { throw ServiceError(.invalidArgument, problem) }
            return .text(path)
        case .choice:
            let choices = "\"" + field.choices.joined(separator: "\", \"") + "\" or \"\" (none)"
            guard case .text(let word) = option else { throw ServiceError(.invalidArgument, "\(name) must be a string (s): \(choices)") }
            guard problem(with: .text(word), for: field) == nil else {
                throw ServiceError(.invalidArgument, "\(name) must be \(choices), got '\(String(word.prefix(64)))'")
            }
            return .text(word)
        case .decibels:
            guard case .number(let decibels) = option, problem(with: .decibels(decibels), for: field) == nil else {
                throw ServiceError(.invalidArgument, "\(name) must be -60 to +10 dB (d)")
            }
            return .decibels(decibels)
        }
    }

    /// `value` as the bus carries it (`Add`'s options, `List`'s properties).
    package static func option(_ value: Value) -> ServiceValue {
        switch value {
        case .flag(let on): .flag(on)
        case .nanoseconds(let nanoseconds): .number(Nanos.seconds(nanoseconds))
        case .text(let text): .text(text)
        case .decibels(let decibels): .number(decibels)
        }
    }

    /// The `Add` options that give a timer these settings: `alert`, `sound`
    /// and `live` always, the others where they differ from a timer added
    /// without them.
    package var serviceOptions: [(String, ServiceValue)] {
        let defaults = AlarmSettings()
        return Field.allCases.compactMap { field in
            let value = self[field]
            guard field.isAlwaysWritten || value != defaults[field] else { return nil }
            return (field.rawValue, Self.option(value))
        }
    }

    // MARK: - The journal

    /// A field's member in a record: durations in `_ns`, decibels in
    /// thousandths (`_mdb`: the files hold integers only).
    static func journalName(_ field: Field) -> String {
        switch field.unit {
        case .flag, .text, .choice: field.rawValue
        case .nanoseconds: field.rawValue + "_ns"
        case .decibels: field.rawValue + "_mdb"
        }
    }

    /// The members of a timer's record that keep these settings: each
    /// always-written one, and the others that differ from what their
    /// absence means.
    var journalMembers: [(String, JSON)] {
        Field.allCases.compactMap { field in
            let value = self[field]
            guard field.isAlwaysWritten || value != field.meaningWhenAbsent else { return nil }
            let member: JSON = switch value {
            case .flag(let on): .bool(on)
            case .nanoseconds(let nanoseconds): .integer(nanoseconds)
            case .text(let text): .string(text)
            case .decibels(let decibels): .integer(Int64((decibels * 1000).rounded()))
            }
            return (Self.journalName(field), member)
        }
    }

    /// The settings a record keeps (an absent member: what it meant when
    /// the record was written).
    /// - Throws: `.corrupt` for a required member missing, or a value of
    ///   the wrong type or outside its field's limits.
    init(journal record: JSON) throws(TocsinError) {
        self.init()
        for field in Field.allCases {
            let value: Value
            switch (field.unit, record[Self.journalName(field)]) {
            case (_, nil):
                guard let absent = field.meaningWhenAbsent else { throw .corrupt }
                value = absent
            case (.flag, .bool(let on)?): value = .flag(on)
            case (.nanoseconds, .integer(let nanoseconds)?): value = .nanoseconds(nanoseconds)
            case (.text, .string(let text)?): value = .text(text)  // (a sound file is checked again when it rings)
            case (.choice, .string(let word)?): value = .text(word)
            case (.decibels, .integer(let thousandths)?): value = .decibels(Double(thousandths) / 1000)
            default: throw .corrupt
            }
            guard Self.problem(with: value, for: field) == nil else { throw .corrupt }
            self[field] = value
        }
    }
}
