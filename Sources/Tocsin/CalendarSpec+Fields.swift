/// A calendar spec's fields: lists of values, ranges and repetitions.
extension CalendarSpec {
    /// `text` cut at every `separator` (empty pieces kept).
    static func split(_ text: String, on separator: String) -> [String] {
        let characters = Array(text.unicodeScalars), cut = Array(separator.unicodeScalars)
        var pieces: [String] = []
        var piece = ""
        var index = 0
        while index < characters.count {
            if index + cut.count <= characters.count, Array(characters[index..<index + cut.count]) == cut {
                pieces.append(piece)
                piece = ""
                index += cut.count
            } else {
                piece.unicodeScalars.append(characters[index])
                index += 1
            }
        }
        pieces.append(piece)
        return pieces
    }

    /// One field: `*`, or a list of values, ranges and repetitions, sorted
    /// and without duplicates (as systemd normalizes them); nil for `*`.
    static func field(_ text: String, _ name: String, _ range: ClosedRange<Int>,
                      column: Int) throws(CalendarSpecError) -> [Element]? {
        if text.isSame(as: "*") { return nil }
        guard !text.isEmpty else { throw CalendarSpecError("the \(name) is missing", column: column) }
        var elements: [Element] = []
        var offset = 0
        for part in split(text, on: ",") {
            let here = column + offset
            offset += part.unicodeScalars.count + 1
            let stepParts = split(part, on: "/")
            guard stepParts.count <= 2 else { throw CalendarSpecError("'\(CalendarSpecError.clipped(part))' has more than one /", column: here) }
            var element: Element
            if stepParts[0].isSame(as: "*") {
                guard stepParts.count == 2 else { throw CalendarSpecError("'*' cannot be part of a list", column: here) }
                element = Element(start: range.lowerBound)
            } else {
                let bounds = split(stepParts[0], on: "..")
                guard bounds.count <= 2 else { throw CalendarSpecError("'\(CalendarSpecError.clipped(stepParts[0]))' has more than one ..", column: here) }
                let start = try number(bounds[0], name, range, column: here)
                element = Element(start: start)
                if bounds.count == 2 {
                    let stop = try number(bounds[1], name, range, column: here + bounds[0].unicodeScalars.count + 2)
                    guard stop >= start else {
                        throw CalendarSpecError("the \(name) range \(CalendarSpecError.clipped(stepParts[0])) ends before it starts", column: here)
                    }
                    element.stop = stop
                }
            }
            if stepParts.count == 2 {
                guard let step = Int(stepParts[1]), step > 0, step <= range.upperBound + 1 else {
                    throw CalendarSpecError("'\(CalendarSpecError.clipped(stepParts[1]))' is not a repetition: a whole number above 0",
                                            column: here + stepParts[0].unicodeScalars.count + 1)
                }
                element.step = step
            }
            elements.append(element)
        }
        elements.sort()
        var unique: [Element] = []
        for element in elements where unique.last != element { unique.append(element) }
        return unique
    }

    static func number(_ text: String, _ name: String, _ range: ClosedRange<Int>,
                       column: Int) throws(CalendarSpecError) -> Int {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), text.utf8.count <= 9, let value = Int(text) else {
            throw CalendarSpecError("'\(CalendarSpecError.clipped(text))' is not a \(name): a whole number", column: column)
        }
        guard range.contains(value) else {
            throw CalendarSpecError("\(name) \(value) is out of range (\(range.lowerBound)..\(range.upperBound))", column: column)
        }
        return value
    }
}
