import TocsinBase

/// The specs parsed last, by their text: a C or Python caller listing a
/// spec's occurrences calls `tocsin_calendar_next` with the same text again
/// and again, and parsing it is most of the call's cost. Only specs that
/// parse are kept; whether their zone is still installed is asked at each
/// use (`zoneRules`). Thread-safe.
final class CalendarSpecCache: @unchecked Sendable {
    static let shared = CalendarSpecCache()

    private static var capacity: Int { 8 }
    private let lock = TocsinLock()
    /// Bytes, not `String`s: comparing strings would pull Unicode tables
    /// into the Embedded library.
    private var entries: [(text: [UInt8], spec: CalendarSpec)] = []

    func spec(_ text: UnsafeRawBufferPointer) -> CalendarSpec? {
        lock.withLock { entries.first { $0.text.elementsEqual(text) }?.spec }
    }

    func remember(_ text: UnsafeRawBufferPointer, _ spec: CalendarSpec) {
        lock.withLock {
            if entries.count >= Self.capacity { entries.removeFirst() }
            entries.append((Array(text), spec))
        }
    }
}

extension CalendarSpec {
    /// Parses UTF-8 `text` as `init(parsing:)` does, remembering the last
    /// few specs that parsed (`CalendarSpecCache`).
    ///
    /// - Throws: `CalendarSpecError`; a text that is not UTF-8 fails at column 1.
    package static func parsed(utf8 text: UnsafeRawBufferPointer) throws(CalendarSpecError) -> CalendarSpec {
        if let known = CalendarSpecCache.shared.spec(text) { return known }
        guard let string = String(validating: text, as: UTF8.self) else {
            throw CalendarSpecError("the spec is not valid UTF-8", column: 1)
        }
        let spec = try CalendarSpec(parsing: string)
        CalendarSpecCache.shared.remember(text, spec)
        return spec
    }
}
