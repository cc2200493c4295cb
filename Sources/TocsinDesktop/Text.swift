/// Byte-for-byte text comparison. The notifier's strings are compared only
/// with ASCII ones or with its own earlier copies, where canonical
/// equivalence (String's `==` and hashing) adds nothing, and it would bring
/// Unicode's normalization tables (about 30 KB) into the Embedded library.
extension String {
    func isSame(as other: String) -> Bool {
        utf8.elementsEqual(other.utf8)
    }
}

extension String {
    /// The parts between the bytes `separator` (ASCII), by bytes too.
    func parts(at separator: UInt8, omittingEmpty: Bool = true) -> [String] {
        utf8.split(separator: separator, omittingEmptySubsequences: omittingEmpty).map { String(decoding: $0, as: UTF8.self) }
    }
}

extension [String] {
    func containsSame(_ text: String) -> Bool {
        contains { $0.isSame(as: text) }
    }
}
