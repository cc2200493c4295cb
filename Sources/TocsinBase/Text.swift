/// Byte-for-byte text comparison, for the C libraries' code. Their strings
/// are compared only with ASCII ones or with their own earlier copies, where
/// canonical equivalence (String's `==`, hashing, Character splits) adds
/// nothing, and it brings Unicode's normalization and grapheme tables (about
/// 30 KB) into the Embedded libraries: libtocsin-notify.so went from 315 KB
/// to 250 KB without them, libtocsin.so from 410 KB to 320 KB. Text that
/// users write (calendar specs) is walked by Unicode scalars, which need no
/// tables either: its error columns count scalars.
extension String {
    package func isSame(as other: String) -> Bool {
        // Lengths first (O(1)), then the bytes in place: a JSON record's
        // key lookups are mostly different lengths, and the generic
        // view-by-view walk was a seventh of a 10,000-timer restart.
        guard utf8.count == other.utf8.count else { return false }
        let equal = utf8.withContiguousStorageIfAvailable { mine in
            other.utf8.withContiguousStorageIfAvailable { theirs in mine.elementsEqual(theirs) }
        }
        return (equal ?? nil) ?? utf8.elementsEqual(other.utf8)
    }

    /// Whether the text has the ASCII byte `ascii` (`"-"`).
    package func hasByte(_ ascii: Unicode.Scalar) -> Bool {
        utf8.contains(UInt8(ascii: ascii))
    }
}

extension String {
    /// The parts between the bytes `separator` (ASCII), by bytes too.
    package func parts(at separator: UInt8, omittingEmpty: Bool = true) -> [String] {
        utf8.split(separator: separator, omittingEmptySubsequences: omittingEmpty).map { String(decoding: $0, as: UTF8.self) }
    }
}

extension [String] {
    package func containsSame(_ text: String) -> Bool {
        contains { $0.isSame(as: text) }
    }
}
