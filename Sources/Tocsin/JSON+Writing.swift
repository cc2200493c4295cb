/// Writing: the text for people (files) and one-line text (journal lines,
/// the command's JSON lines), appended into one byte buffer.
extension JSON {
    /// The text for people: each member and each item of an array on its
    /// own line, indented by two spaces a level; arrays of integers on one line.
    package func encoded() -> String {
        var out: [UInt8] = []
        write(to: &out, indent: 0)
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
}
