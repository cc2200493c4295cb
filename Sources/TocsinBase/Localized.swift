import CTocsinSystem

/// Text a person reads, in their language: the gettext domain `tocsin`
/// (po/, docs/translating.md), bound on first use by `tocsin_intl.h` as a
/// library must (never `setlocale` or `textdomain`: the program's). A
/// message names its values `{label}`, so a translation may put them in
/// any order; `{count}` is a plural's count.
///
/// xgettext finds the messages by these names (`make pot`): the text must
/// be a plain literal, without `\(…)`.
///
/// Thread-safe; each call a lookup in the loaded catalog, cheap beside the
/// notification or line it is for.
package func tr(_ message: StaticString, _ values: KeyValuePairs<String, String> = [:]) -> String {
    let translated = String(cString: tocsin_gettext(cString(message)))
    return values.isEmpty ? translated : Localized.fill(translated, values)
}

/// A message that depends on `count`: `one` or `many` in English, the
/// language's plural form otherwise; `{count}` is the count.
package func trn(_ one: StaticString, _ many: StaticString, _ count: Int,
                 _ values: KeyValuePairs<String, String> = [:]) -> String {
    let translated = String(cString: tocsin_ngettext(cString(one), cString(many), UInt(max(0, count))))
    return Localized.fill(translated, [("count", String(count))] + values.map { ($0.key, $0.value) })
}

/// A static string's bytes as a C string (a literal's are NUL-terminated).
private func cString(_ text: StaticString) -> UnsafePointer<CChar> {
    UnsafeRawPointer(text.utf8Start).assumingMemoryBound(to: CChar.self)
}

package enum Localized {
    /// `template` with each `{name}` of `values` put in; other braces are left.
    static func fill(_ template: String, _ values: KeyValuePairs<String, String>) -> String {
        fill(template, values.map { ($0.key, $0.value) })
    }

    static func fill(_ template: String, _ values: [(String, String)]) -> String {
        guard template.utf8.contains(UInt8(ascii: "{")) else { return template }
        var text: [UInt8] = []
        var bytes = template.utf8[...]
        while let open = bytes.firstIndex(of: UInt8(ascii: "{")) {
            text += bytes[..<open]
            guard let close = bytes[open...].firstIndex(of: UInt8(ascii: "}")) else { break }
            let name = bytes[bytes.index(after: open)..<close]
            if let value = values.first(where: { $0.0.utf8.elementsEqual(name) })?.1 {
                text += value.utf8
            } else {
                text += bytes[open...close]  // not one of ours: left as it is
            }
            bytes = bytes[bytes.index(after: close)...]
        }
        text += bytes
        return String(decoding: text, as: UTF8.self)
    }

    /// The folder translations are read from (`tocsin doctor` says it).
    package static var folder: String { String(cString: tocsin_locale_folder()) }
}
