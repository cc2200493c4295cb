/// `List`'s reply, `aa{sv}`, written straight into GVariant's serialized
/// form (the GVariant specification, "Serialisation"), ready for
/// `g_variant_new_from_bytes`. GLib would build a tree of GVariants, one
/// allocation, reference count and lock per node (some 50 per timer), and
/// then walk it to serialize: 300 ms for 10,000 timers. Here it is one
/// buffer, appended to in order. Values are native-endian, as GVariant's.
/// Tested byte for byte against GLib's own serialization.
struct PropertyListEncoder {
    private(set) var bytes: [UInt8] = []
    /// Element ends of the array being written, reused across timers.
    private var entryEnds: [Int] = []

    /// The serialized `aa{sv}` of `timers`.
    static func encode(_ timers: [[(String, ServiceValue)]]) -> [UInt8] {
        encode(count: timers.count) { body in timers.forEach(body) }
    }

    /// The serialized `aa{sv}` of the table's rows, written as they are made.
    static func encode(_ table: TimerTable) -> [UInt8] {
        encode(count: table.ids.count, table.forEachRow)
    }

    private static func encode(count: Int, _ rows: (([(String, ServiceValue)]) -> Void) -> Void) -> [UInt8] {
        var encoder = PropertyListEncoder()
        encoder.bytes.reserveCapacity(count * 640)
        var timerEnds: [Int] = []
        timerEnds.reserveCapacity(count)
        rows { properties in
            encoder.pad(to: 8)
            encoder.dictionary(properties)
            timerEnds.append(encoder.bytes.count)
        }
        encoder.frame(timerEnds, from: 0)
        return encoder.bytes
    }

    /// One `a{sv}`: its `{sv}` entries, each 8-aligned, then their ends.
    private mutating func dictionary(_ properties: [(String, ServiceValue)]) {
        let start = bytes.count
        entryEnds.removeAll(keepingCapacity: true)
        for (name, value) in properties {
            pad(to: 8)
            let entry = bytes.count
            bytes.append(contentsOf: name.utf8)
            bytes.append(0)
            let keyEnd = bytes.count - entry
            pad(to: 8)  // a variant's alignment
            variant(value)
            // A dict entry frames its key's end (the variant, last, needs none).
            frame(CollectionOfOne(keyEnd), from: entry)
            entryEnds.append(bytes.count - start)
        }
        frame(entryEnds, from: start)
    }

    /// A variant: the value, a zero byte, the value's type.
    private mutating func variant(_ value: ServiceValue) {
        let type: StaticString
        switch value {
        case .id(let id):
            append(id)
            type = "t"
        case .number(let number):
            append(number.bitPattern)
            type = "d"
        case .text(let text):
            bytes.append(contentsOf: text.utf8)
            bytes.append(0)
            type = "s"
        case .flag(let flag):
            bytes.append(flag ? 1 : 0)
            type = "b"
        case .numbers(let numbers):
            for number in numbers { append(number.bitPattern) }
            type = "ad"
        }
        bytes.append(0)
        type.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    private mutating func append(_ value: UInt64) {
        withUnsafeBytes(of: value) { bytes.append(contentsOf: $0) }
    }

    private mutating func pad(to alignment: Int) {
        while bytes.count % alignment != 0 { bytes.append(0) }
    }

    /// Appends the framing offsets of the container that began at `start`
    /// (`ends` relative to it), each as wide as the container's whole size
    /// needs (GLib's `gvs_calculate_total_size`): 1, 2, 4 or 8 bytes.
    private mutating func frame(_ ends: some Collection<Int>, from start: Int) {
        let body = bytes.count - start, count = ends.count
        let width = if body + count <= 0xFF { 1 } else if body + 2 * count <= 0xFFFF { 2 }
            else if body + 4 * count <= 0xFFFF_FFFF { 4 } else { 8 }
        guard count > 0 else { return }
        for end in ends {
            withUnsafeBytes(of: UInt64(end).littleEndian) { bytes.append(contentsOf: $0.prefix(width)) }
        }
    }
}
