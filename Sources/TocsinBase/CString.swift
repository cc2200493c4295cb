extension String {
    /// Copies the UTF-8 text into a C buffer of `capacity` bytes as
    /// `snprintf` does: NUL-terminated, cut before a character that does not
    /// fit (never inside one), nothing written for a NULL buffer or zero
    /// capacity. Returns the text's whole length in bytes.
    package func copyTruncated(into buffer: UnsafeMutablePointer<CChar>?, capacity: Int) -> Int {
        let bytes = Array(utf8)
        guard let buffer, capacity > 0 else { return bytes.count }
        var length = min(bytes.count, capacity - 1)
        while length > 0 && length < bytes.count && bytes[length] & 0xC0 == 0x80 {
            length -= 1
        }
        for offset in 0..<length {
            buffer[offset] = CChar(bitPattern: bytes[offset])
        }
        buffer[length] = 0
        return bytes.count
    }
}
