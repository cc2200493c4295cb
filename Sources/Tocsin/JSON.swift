/// The project's JSON: a small, strict reader and writer for the timer file
/// (objects, arrays, strings, integers, booleans and null: the file keeps
/// time in integer nanoseconds), and the writer of the command's and the
/// service's JSON lines, whose seconds are fractions (`number`, written only).
/// Reading is bounded in depth and size so that garbage is rejected, never
/// trusted.
package enum JSON: Equatable {
    case object([(String, JSON)])
    case array([JSON])
    case string(String)
    case integer(Int64)
    /// Seconds and such: written rounded to the microsecond (null if not
    /// finite); never read (the reader rejects fractions).
    case number(Double)
    case bool(Bool)
    case null

    package static func == (lhs: JSON, rhs: JSON) -> Bool {
        switch (lhs, rhs) {
        case (.object(let a), .object(let b)): a.count == b.count && zip(a, b).allSatisfy { $0.0.isSame(as: $1.0) && $0.1 == $1.1 }
        case (.array(let a), .array(let b)): a == b
        case (.string(let a), .string(let b)): a.isSame(as: b)
        case (.integer(let a), .integer(let b)): a == b
        case (.number(let a), .number(let b)): a == b
        case (.bool(let a), .bool(let b)): a == b
        case (.null, .null): true
        default: false
        }
    }

    /// True if this is the string `text` (compared byte for byte: see `Text.swift`).
    package func isString(_ text: String) -> Bool {
        if case .string(let value) = self { value.isSame(as: text) } else { false }
    }

    package subscript(key: String) -> JSON? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.0.isSame(as: key) }?.1
    }
}
