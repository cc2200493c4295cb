import CGio
import Testing
@testable import TocsinService

/// `List`'s hand-made serialization is GLib's, byte for byte, and GLib
/// reads it back as the same values.
@Suite struct PropertyListEncoderTests {
    private func glibBytes(_ timers: [[(String, ServiceValue)]]) -> [UInt8] {
        let value = Variant.array(of: "a{sv}", timers.map { Variant.dictionary($0) })
        g_variant_ref_sink(value)
        defer { g_variant_unref(value) }
        let size = Int(g_variant_get_size(value))
        guard size > 0, let data = g_variant_get_data(value) else { return [] }
        return Array(UnsafeRawBufferPointer(start: data, count: size))
    }

    private func timer(_ number: Int, label: String, laps: Int) -> [(String, ServiceValue)] {
        [("id", .id(UInt64(number))), ("label", .text(label)), ("kind", .text("countdown")),
         ("state", .text(number % 2 == 0 ? "running" : "suspended")), ("elapsed", .number(Double(number) * 1.25)),
         ("laps", .numbers((0..<laps).map { Double($0) / 3 })), ("live", .flag(number % 3 == 0)),
         ("remaining", .number(-0.0)), ("finishes", .id(.max))]
    }

    @Test(arguments: [0, 1, 3, 40, 2_000])
    func theSameBytesAsGLib(count: Int) {
        let timers = (0..<count).map { timer($0, label: "Tea \($0) é", laps: $0 % 4) }
        #expect(PropertyListEncoder.encode(timers) == glibBytes(timers))
    }

    @Test func wideFramingOffsetsForLargeValues() {
        // Entries over 255 and 65,535 bytes need 2- and 4-byte offsets.
        let timers = [timer(1, label: String(repeating: "x", count: 300), laps: 0),
                      timer(2, label: String(repeating: "y", count: 70_000), laps: 9_000), timer(3, label: "", laps: 0)]
        #expect(PropertyListEncoder.encode(timers) == glibBytes(timers))
    }

    @Test func glibReadsItBack() {
        let bytes = PropertyListEncoder.encode([timer(7, label: "Rice", laps: 2)])
        let value = Variant.serialized(bytes, type: "(aa{sv})")
        g_variant_ref_sink(value)
        defer { g_variant_unref(value) }
        #expect(g_variant_is_normal_form(value) != 0)
        let text = g_variant_print(value, 0)
        defer { g_free(text) }
        let printed = String(cString: text!)
        #expect(printed.contains("'label': <'Rice'>") && printed.contains("'laps': <[0.0, 0.33333333333333331]>"))
    }
}
