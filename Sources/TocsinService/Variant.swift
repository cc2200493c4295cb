import CGio

/// The GVariant codec of the service's D-Bus values, for the service
/// (`ServiceBus`) and its client (`ServiceClient`) alike: `a{sv}` to and from
/// `ServiceValue`s, the containers the calls and signals are made of, and
/// `ListColumns`' table (`Variant+Table`). Built values are floating
/// references, taken by whatever they are passed to.
enum Variant {
    /// `a{sv}` (Add's options) as the service's values; `.invalidArgument`
    /// for a type the options do not take.
    static func options(_ dictionary: OpaquePointer) throws(ServiceError) -> [String: ServiceValue] {
        guard g_variant_n_children(dictionary) <= TimerService.Limits.options else {
            throw ServiceError(.invalidArgument, "at most \(TimerService.Limits.options) options")
        }
        var options: [String: ServiceValue] = [:]
        for (name, type, value) in decode(dictionary) {
            guard let value, type != "ad" else {
                throw ServiceError(.invalidArgument, "option \(name) has type \(type); options take s, d, b or t")
            }
            options[name] = value
        }
        return options
    }

    /// An `a{sv}`'s entries: name, the value's type, and the value where
    /// it is one the service uses (s, d, b, t, ad).
    static func decode(_ dictionary: OpaquePointer) -> [(name: String, type: String, value: ServiceValue?)] {
        var entries: [(name: String, type: String, value: ServiceValue?)] = []
        forEachEntry(of: dictionary) { name, value in
            let type = String(cString: g_variant_get_type_string(value))
            let decoded: ServiceValue? = switch type {
            case "s": .text(String(cString: g_variant_get_string(value, nil)))
            case "d": .number(g_variant_get_double(value))
            case "b": .flag(g_variant_get_boolean(value) != 0)
            case "t": .id(UInt64(g_variant_get_uint64(value)))
            case "ad":
                .numbers((0..<Int(g_variant_n_children(value))).map { item in
                    let number = g_variant_get_child_value(value, gsize(item))!
                    defer { g_variant_unref(number) }
                    return g_variant_get_double(number)
                })
            default: nil
            }
            entries.append((name, type, decoded))
            return true
        }
        return entries
    }

    /// Calls `body` with each entry of an `a{sv}`: its name and its value,
    /// unboxed (a reference released after `body`), until `body` says false.
    static func forEachEntry(of dictionary: OpaquePointer, _ body: (String, OpaquePointer) -> Bool) {
        for index in 0..<Int(g_variant_n_children(dictionary)) {
            let entry = g_variant_get_child_value(dictionary, gsize(index))!
            let key = g_variant_get_child_value(entry, 0)!
            let boxed = g_variant_get_child_value(entry, 1)!
            let value = g_variant_get_variant(boxed)!
            defer { g_variant_unref(entry); g_variant_unref(key); g_variant_unref(boxed); g_variant_unref(value) }
            guard body(String(cString: g_variant_get_string(key, nil)), value) else { return }
        }
    }

    /// An `a{sv}`'s `u` entries (the bus's credentials: UnixUserID, ProcessID).
    static func unsignedNumbers(_ dictionary: OpaquePointer) -> [String: UInt32] {
        var numbers: [String: UInt32] = [:]
        forEachEntry(of: dictionary) { name, value in
            if String(cString: g_variant_get_type_string(value)) == "u" { numbers[name] = g_variant_get_uint32(value) }
            return true
        }
        return numbers
    }

    static func dictionary(_ properties: [(String, ServiceValue)]) -> OpaquePointer? {
        dictionary(properties.map { name, value in (name, variant(value)) })
    }

    /// An `a{sv}` of GVariants (floating references, taken).
    static func dictionary(_ values: [(String, OpaquePointer?)]) -> OpaquePointer? {
        array(of: "{sv}", values.map { name, value in
            g_variant_new_dict_entry(g_variant_new_string(name), g_variant_new_variant(value))
        })
    }

    static func variant(_ value: ServiceValue) -> OpaquePointer? {
        switch value {
        case .id(let id): g_variant_new_uint64(guint64(id))
        case .number(let number): g_variant_new_double(number)
        case .text(let text): g_variant_new_string(text)
        case .flag(let flag): g_variant_new_boolean(flag ? 1 : 0)
        case .numbers(let numbers): array(of: "d", numbers.map { g_variant_new_double($0) })
        }
    }

    static func array(of type: String, _ items: [OpaquePointer?]) -> OpaquePointer? {
        let childType = g_variant_type_new(type)
        defer { g_variant_type_free(childType) }
        return items.withUnsafeBufferPointer { g_variant_new_array(childType, $0.baseAddress, gsize($0.count)) }
    }

    /// A value from its serialized form (trusted: made by this program).
    static func serialized(_ bytes: [UInt8], type: String) -> OpaquePointer? {
        let data = bytes.withUnsafeBytes { g_bytes_new($0.baseAddress, gsize($0.count)) }
        let variantType = g_variant_type_new(type)
        defer {
            g_bytes_unref(data)
            g_variant_type_free(variantType)
        }
        return g_variant_new_from_bytes(variantType, data, 1)
    }

    static func tuple(_ items: [OpaquePointer?]) -> OpaquePointer? {
        items.withUnsafeBufferPointer { g_variant_new_tuple($0.baseAddress, gsize($0.count)) }
    }
}
