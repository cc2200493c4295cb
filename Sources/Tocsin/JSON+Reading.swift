/// Reading: strict, bounded in depth; anything else is nil.
extension JSON {
    static let maxDepth = 16

    /// Parses a whole document; nil for anything that is not strict JSON of
    /// the supported kinds (including numbers out of Int64, and with
    /// fractions or exponents unless `fractions`: then they are `.number`s,
    /// as the service's history writes its times).
    package static func parse(_ bytes: [UInt8], fractions: Bool = false) -> JSON? {
        var reader = Reader(bytes: bytes, fractions: fractions)
        guard let value = reader.value(depth: 0) else { return nil }
        reader.skipSpace()
        return reader.index == bytes.count ? value : nil
    }

    private struct Reader {
        let bytes: [UInt8]
        /// Numbers with fractions or exponents are read (as `.number`).
        let fractions: Bool
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
                return fractions ? fraction(from: start) : nil  // (not part of the timer file's format)
            }
            if negative { return .integer(value) }
            return value == .min ? nil : .integer(-value)
        }

        /// The rest of a number with a fraction or exponent begun at
        /// `start` (its integer part read): `.5`, `e-3`, `.25E+2`. Worked
        /// out without `strtod` (not in the Embedded Swift runtime): exact
        /// for up to 15 significant digits and powers of ten up to 22, as
        /// times and durations to the microsecond are.
        mutating func fraction(from start: Int) -> JSON? {
            let isDigit = { (byte: UInt8) in byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
            var mantissa: Int64 = 0
            var scale = 0  // the power of ten the mantissa is multiplied by
            var at = bytes[start] == UInt8(ascii: "-") ? start + 1 : start
            var point = false
            while at < bytes.count, isDigit(bytes[at]) || (!point && bytes[at] == UInt8(ascii: ".")) {
                if bytes[at] == UInt8(ascii: ".") {
                    point = true
                    guard at + 1 < bytes.count, isDigit(bytes[at + 1]) else { return nil }
                } else if mantissa < 100_000_000_000_000_000 {
                    mantissa = mantissa * 10 + Int64(bytes[at] - UInt8(ascii: "0"))
                    if point { scale -= 1 }
                } else if !point {
                    scale += 1  // (digits past 18 are dropped)
                }
                at += 1
            }
            if at < bytes.count, bytes[at] | 0x20 == UInt8(ascii: "e") {
                at += 1
                let negative = at < bytes.count && bytes[at] == UInt8(ascii: "-")
                if at < bytes.count, bytes[at] == UInt8(ascii: "+") || bytes[at] == UInt8(ascii: "-") { at += 1 }
                guard at < bytes.count, isDigit(bytes[at]) else { return nil }
                var exponent = 0
                while at < bytes.count, isDigit(bytes[at]) {
                    exponent = min(10_000, exponent * 10 + Int(bytes[at] - UInt8(ascii: "0")))
                    at += 1
                }
                scale += negative ? -exponent : exponent
            }
            index = at
            var power = 1.0
            for _ in 0..<min(abs(scale), 400) { power *= 10 }
            let value = (scale < 0 ? Double(mantissa) / power : Double(mantissa) * power) * (bytes[start] == UInt8(ascii: "-") ? -1 : 1)
            return value.isFinite ? .number(value) : nil
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
