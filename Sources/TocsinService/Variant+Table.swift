import CGio
import Glibc

/// `ListColumns`' reply as GVariants, and back.
extension Variant {
    /// The table as `a{sv}`: each column's name and its array. Arrays of
    /// numbers and codes are copied whole (`g_variant_new_fixed_array`).
    static func columns(_ table: TimerTable) -> OpaquePointer? {
        dictionary(table.columns.map { column, values in (column.rawValue, array(values)) })
    }

    private static func array(_ values: TimerTable.Values) -> OpaquePointer? {
        func fixed<T>(_ type: String, _ items: [T]) -> OpaquePointer? {
            let elementType = g_variant_type_new(type)
            defer { g_variant_type_free(elementType) }
            return items.withUnsafeBytes {
                g_variant_new_fixed_array(elementType, $0.baseAddress, gsize(items.count), gsize(MemoryLayout<T>.stride))
            }
        }
        switch values {
        case .ids(let ids): return fixed("t", ids)
        case .numbers(let numbers): return fixed("d", numbers)
        case .codes(let codes): return fixed("y", codes)
        case .texts(let texts): return array(of: "s", texts.map { g_variant_new_string($0) })
        case .textsByID(let byID):
            return array(of: "(ts)", byID.map { tuple([g_variant_new_uint64(guint64($0)), g_variant_new_string($1)]) })
        case .lapsByID(let byID):
            return array(of: "(tad)", byID.map { tuple([g_variant_new_uint64(guint64($0)), fixed("d", $1)]) })
        }
    }

    /// A `ListColumns` reply's columns; nil if one is not what the
    /// interface says it is (an unknown column is skipped: a newer service).
    static func table(_ dictionary: OpaquePointer) -> TimerTable? {
        var columns: [(TimerTable.Column, TimerTable.Values)] = []
        var malformed = false
        forEachEntry(of: dictionary) { name, value in
            guard let column = TimerTable.Column(rawValue: name) else { return true }
            guard let values = values(value) else {
                malformed = true
                return false
            }
            columns.append((column, values))
            return true
        }
        if malformed { return nil }
        let table = TimerTable(columns)
        return table.isWellFormed ? table : nil
    }

    private static func values(_ array: OpaquePointer) -> TimerTable.Values? {
        switch String(cString: g_variant_get_type_string(array)) {
        case "at": return .ids(fixed(array))
        case "ad": return .numbers(fixed(array))
        case "ay": return .codes(fixed(array))
        case "as": return .texts(children(of: array) { String(cString: g_variant_get_string($0, nil)) })
        case "a(ts)":
            return .textsByID(children(of: array) { entry in
                pair(entry) { id, text in (id, String(cString: g_variant_get_string(text, nil))) }
            })
        case "a(tad)": return .lapsByID(children(of: array) { entry in pair(entry) { id, laps in (id, fixed(laps)) } })
        default: return nil
        }
    }

    /// An array of a fixed-size type, copied out.
    private static func fixed<T: BitwiseCopyable>(_ array: OpaquePointer) -> [T] {
        var count: gsize = 0
        guard let start = g_variant_get_fixed_array(array, &count, gsize(MemoryLayout<T>.stride)) else { return [] }
        return Array(UnsafeBufferPointer(start: start.assumingMemoryBound(to: T.self), count: Int(count)))
    }

    /// A pair `(t…)`: its id and what `value` makes of its value.
    private static func pair<T>(_ entry: OpaquePointer, _ value: (UInt64, OpaquePointer) -> T) -> T {
        let key = g_variant_get_child_value(entry, 0)!, item = g_variant_get_child_value(entry, 1)!
        defer { g_variant_unref(key); g_variant_unref(item) }
        return value(UInt64(g_variant_get_uint64(key)), item)
    }

    private static func children<T>(of array: OpaquePointer, _ item: (OpaquePointer) -> T) -> [T] {
        (0..<Int(g_variant_n_children(array))).map { index in
            let child = g_variant_get_child_value(array, gsize(index))!
            defer { g_variant_unref(child) }
            return item(child)
        }
    }
}
