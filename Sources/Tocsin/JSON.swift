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

    // MARK: - Writing

    /// The text for people: each member and each item of an array on its
    /// own line, indented by two spaces a level; arrays of integers on one line.
    package func encoded(indent: String = "") -> String {
        var out: [UInt8] = []
        write(to: &out, indent: indent.utf8.count)
        return String(decoding: out, as: UTF8.self)
    }

    /// `encoded()` and a newline, as a file holds it.
    package func encodedFile() -> [UInt8] {
        var out: [UInt8] = []
        write(to: &out, indent: 0)
        out.append(0x0A)
        return out
    }

    /// Appends the text to `out` (one buffer for the whole document:
    /// building a string per value made a 10,000-timer file slow).
    private func write(to out: inout [UInt8], indent: Int) {
        switch self {
        case .object(let members):
            guard !members.isEmpty else { return out.append(contentsOf: "{}".utf8) }
            out.append(UInt8(ascii: "{"))
            for (position, (key, value)) in members.enumerated() {
                out.append(contentsOf: position == 0 ? "\n".utf8 : ",\n".utf8)
                Self.spaces(indent + 2, to: &out)
                Self.quoted(key, to: &out)
                out.append(contentsOf: ": ".utf8)
                value.write(to: &out, indent: indent + 2)
            }
            out.append(0x0A)
            Self.spaces(indent, to: &out)
            out.append(UInt8(ascii: "}"))
        case .array(let items):
            guard !items.isEmpty else { return out.append(contentsOf: "[]".utf8) }
            out.append(UInt8(ascii: "["))
            if items.allSatisfy({ if case .integer = $0 { true } else { false } }) {
                for (position, item) in items.enumerated() {
                    if position > 0 { out.append(contentsOf: ", ".utf8) }
                    item.writeCompact(to: &out)
                }
            } else {
                for (position, item) in items.enumerated() {
                    out.append(contentsOf: position == 0 ? "\n".utf8 : ",\n".utf8)
                    Self.spaces(indent + 2, to: &out)
                    item.write(to: &out, indent: indent + 2)
                }
                out.append(0x0A)
                Self.spaces(indent, to: &out)
            }
            out.append(UInt8(ascii: "]"))
        default:
            writeCompact(to: &out)
        }
    }

    private static func spaces(_ count: Int, to out: inout [UInt8]) {
        out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: count))
    }

    /// `text` as a JSON string: quotes, backslashes and control characters
    /// escaped; everything else as its UTF-8.
    private static func quoted(_ text: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: "\\\"".utf8)
            case UInt8(ascii: "\\"): out.append(contentsOf: "\\\\".utf8)
            case 0x0A: out.append(contentsOf: "\\n".utf8)
            case 0x0D: out.append(contentsOf: "\\r".utf8)
            case 0x09: out.append(contentsOf: "\\t".utf8)
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                out.append(contentsOf: "\\u00".utf8)
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0xF)])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    /// Appends the value in one line, no spaces.
    private func writeCompact(to out: inout [UInt8]) {
        switch self {
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            for (position, (key, value)) in members.enumerated() {
                if position > 0 { out.append(UInt8(ascii: ",")) }
                Self.quoted(key, to: &out)
                out.append(UInt8(ascii: ":"))
                value.writeCompact(to: &out)
            }
            out.append(UInt8(ascii: "}"))
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (position, item) in items.enumerated() {
                if position > 0 { out.append(UInt8(ascii: ",")) }
                item.writeCompact(to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .string(let text): Self.quoted(text, to: &out)
        case .integer(let value): out.append(contentsOf: String(value).utf8)
        case .number(let value): out.append(contentsOf: Self.decimal(value).utf8)
        case .bool(let value): out.append(contentsOf: (value ? "true" : "false").utf8)
        case .null: out.append(contentsOf: "null".utf8)
        }
    }

    /// A number rounded to the microsecond in plain decimal, at least one
    /// digit after the point ("290.2", "10.0", "0.000001"; "null" if not
    /// finite). Written with integers: no exponent, the same text on every
    /// machine, and no float printing in the C libraries.
    static func decimal(_ value: Double) -> String {
        guard value.isFinite else { return "null" }
        let scaled = (value * 1e6).rounded()
        let micros = scaled >= 0x1p63 ? Int64.max : scaled <= -0x1p63 ? Int64.min : Int64(scaled)
        let magnitude = micros.magnitude
        var fraction = magnitude % 1_000_000
        var digits = 6  // of the fraction, trailing zeros dropped down to one
        while digits > 1, fraction % 10 == 0 {
            fraction /= 10
            digits -= 1
        }
        let text = String(fraction)
        return (micros < 0 ? "-" : "") + String(magnitude / 1_000_000) + "."
            + String(repeating: "0", count: digits - text.utf8.count) + text
    }

    /// One line, no spaces: a journal's line.
    package func compactEncoded() -> String {
        var out: [UInt8] = []
        writeCompact(to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    // MARK: - Reading

    static let maxDepth = 16

    /// Parses a whole document; nil for anything that is not strict JSON of
    /// the supported kinds (including numbers with fractions or out of Int64).
    package static func parse(_ bytes: [UInt8]) -> JSON? {
        var reader = Reader(bytes: bytes)
        guard let value = reader.value(depth: 0) else { return nil }
        reader.skipSpace()
        return reader.index == bytes.count ? value : nil
    }

    private struct Reader {
        let bytes: [UInt8]
        var index = 0

        mutating func skipSpace() {
            while index < bytes.count {
                switch bytes[index] {
                case 0x20, 0x09, 0x0A, 0x0D: index += 1
                default: return
                }
            }
        }

        mutating func value(depth: Int) -> JSON? {
            guard depth <= JSON.maxDepth else { return nil }
            skipSpace()
            guard index < bytes.count else { return nil }
            switch bytes[index] {
            case UInt8(ascii: "{"): return object(depth: depth)
            case UInt8(ascii: "["): return array(depth: depth)
            case UInt8(ascii: "\""): return string().map(JSON.string)
            case UInt8(ascii: "t"): return literal("true", .bool(true))
            case UInt8(ascii: "f"): return literal("false", .bool(false))
            case UInt8(ascii: "n"): return literal("null", .null)
            default: return integer()
            }
        }

        mutating func literal(_ word: StaticString, _ result: JSON) -> JSON? {
            let count = word.utf8CodeUnitCount
            guard index + count <= bytes.count else { return nil }
            for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] { return nil }
            index += count
            return result
        }

        mutating func object(depth: Int) -> JSON? {
            index += 1
            var members: [(String, JSON)] = []
            skipSpace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                index += 1
                return .object(members)
            }
            while true {
                skipSpace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\""), let key = string() else { return nil }
                guard !members.contains(where: { $0.0.isSame(as: key) }) else { return nil }  // no duplicate keys
                skipSpace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { return nil }
                index += 1
                guard let member = value(depth: depth + 1) else { return nil }
                members.append((key, member))
                skipSpace()
                guard index < bytes.count else { return nil }
                if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
                guard bytes[index] == UInt8(ascii: "}") else { return nil }
                index += 1
                return .object(members)
            }
        }

        mutating func array(depth: Int) -> JSON? {
            index += 1
            var items: [JSON] = []
            skipSpace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                index += 1
                return .array(items)
            }
            while true {
                guard let item = value(depth: depth + 1) else { return nil }
                items.append(item)
                skipSpace()
                guard index < bytes.count else { return nil }
                if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
                guard bytes[index] == UInt8(ascii: "]") else { return nil }
                index += 1
                return .array(items)
            }
        }

        mutating func integer() -> JSON? {
            let start = index
            if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
            let negative = index > start
            let digits = index
            // Summed as a negative number: Int64.min has no positive twin.
            var value: Int64 = 0
            while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") {
                let (tens, overflow) = value.multipliedReportingOverflow(by: 10)
                let (sum, overflowAgain) = tens.subtractingReportingOverflow(Int64(bytes[index] - UInt8(ascii: "0")))
                guard !overflow, !overflowAgain else { return nil }
                value = sum
                index += 1
            }
            guard index > digits,
                  !(bytes[digits] == UInt8(ascii: "0") && index - digits > 1)  // no leading zeros
            else { return nil }
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") || bytes[index] | 0x20 == UInt8(ascii: "e") {
                return nil  // fractions and exponents are not part of the format
            }
            if negative { return .integer(value) }
            return value == .min ? nil : .integer(-value)
        }

        mutating func string() -> String? {
            index += 1
            // Most strings have no escapes: validated as one run of bytes.
            var end = index
            while end < bytes.count, bytes[end] != UInt8(ascii: "\""), bytes[end] != UInt8(ascii: "\\"), bytes[end] >= 0x20 {
                end += 1
            }
            if end < bytes.count, bytes[end] == UInt8(ascii: "\"") {
                guard let text = String(validating: bytes[index..<end], as: UTF8.self) else { return nil }
                index = end + 1
                return text
            }
            var scalars = String.UnicodeScalarView()
            var raw: [UInt8] = []
            func flush() -> Bool {
                guard !raw.isEmpty else { return true }
                guard let text = String(validating: raw, as: UTF8.self) else { return false }
                scalars.append(contentsOf: text.unicodeScalars)
                raw.removeAll()
                return true
            }
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                switch byte {
                case UInt8(ascii: "\""):
                    return flush() ? String(scalars) : nil
                case UInt8(ascii: "\\"):
                    guard flush(), index < bytes.count else { return nil }
                    let escape = bytes[index]
                    index += 1
                    switch escape {
                    case UInt8(ascii: "\""): scalars.append("\"")
                    case UInt8(ascii: "\\"): scalars.append("\\")
                    case UInt8(ascii: "/"): scalars.append("/")
                    case UInt8(ascii: "n"): scalars.append("\n")
                    case UInt8(ascii: "r"): scalars.append("\r")
                    case UInt8(ascii: "t"): scalars.append("\t")
                    case UInt8(ascii: "b"): scalars.append("\u{8}")
                    case UInt8(ascii: "f"): scalars.append("\u{C}")
                    case UInt8(ascii: "u"):
                        guard let scalar = unicodeEscape() else { return nil }
                        scalars.append(scalar)
                    default: return nil
                    }
                case 0..<0x20:
                    return nil  // control characters must be escaped
                default:
                    raw.append(byte)
                }
            }
            return nil
        }

        /// \uXXXX, with surrogate pairs.
        mutating func unicodeEscape() -> Unicode.Scalar? {
            guard let high = hex4() else { return nil }
            if (0xD800...0xDBFF).contains(high) {
                guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else { return nil }
                index += 2
                guard let low = hex4(), (0xDC00...0xDFFF).contains(low) else { return nil }
                return Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
            }
            return Unicode.Scalar(high)
        }

        mutating func hex4() -> UInt32? {
            guard index + 4 <= bytes.count,
                  let value = UInt32(String(decoding: bytes[index..<index + 4], as: UTF8.self), radix: 16)
            else { return nil }
            index += 4
            return value
        }
    }
}
