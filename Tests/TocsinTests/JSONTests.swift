import Testing
@testable import Tocsin

/// The project's JSON reader and writer: the exact text written (files and
/// journal lines are compared and diffed by people), what is read back, and
/// everything the strict reader must refuse.
@Suite struct JSONTests {
    static let sample = JSON.object([
        ("format", .string("tocsin-timers")), ("version", .integer(2)),
        ("timers", .array([
            .object([("id", .integer(1)), ("label", .string("Tea \"green\"\\\n\t\u{1}é☕")), ("laps", .array([.integer(5), .integer(-7)]))]),
            .object([("empty", .object([])), ("none", .array([])), ("on", .bool(true)), ("off", .bool(false)), ("nothing", .null)]),
        ])),
        ("seconds", .array([.number(290.2), .number(-0.000001), .number(.nan), .number(10)])),
        ("extremes", .array([.integer(.min), .integer(.max), .integer(0)])),
    ])

    @Test func writesTheSameTextAsAlways() {
        let expected = """
        {
          "format": "tocsin-timers",
          "version": 2,
          "timers": [
            {
              "id": 1,
              "label": "Tea \\"green\\"\\\\\\n\\t\\u0001é☕",
              "laps": [5, -7]
            },
            {
              "empty": {},
              "none": [],
              "on": true,
              "off": false,
              "nothing": null
            }
          ],
          "seconds": [
            290.2,
            -0.000001,
            null,
            10.0
          ],
          "extremes": [-9223372036854775808, 9223372036854775807, 0]
        }
        """
        #expect(Self.sample.encoded() == expected)
        #expect(Self.sample.compactEncoded() == """
            {"format":"tocsin-timers","version":2,"timers":[{"id":1,"label":"Tea \\"green\\"\\\\\\n\\t\\u0001é☕","laps":[5,-7]},\
            {"empty":{},"none":[],"on":true,"off":false,"nothing":null}],"seconds":[290.2,-0.000001,null,10.0],\
            "extremes":[-9223372036854775808,9223372036854775807,0]}
            """)
    }

    @Test func readsBackWhatItWrites() throws {
        let integral = JSON.object([("a", .array([.integer(.min), .integer(.max), .string("x\u{7f}\u{10FFFF}\0y")])), ("b", Self.sample["timers"]!)])
        for text in [integral.encoded(), integral.compactEncoded()] {
            #expect(JSON.parse(Array(text.utf8)) == integral)
        }
    }

    @Test func readsEscapesAndSpaces() {
        #expect(JSON.parse(Array(#" { "a" : [ 1 ,2 ] , "b":"\u00e9\ud83d\ude00\/\b\f\r" } "#.utf8))
                == .object([("a", .array([.integer(1), .integer(2)])), ("b", .string("é😀/\u{8}\u{C}\r"))]))
        #expect(JSON.parse(Array("\"\u{7f}\"".utf8)) == .string("\u{7f}"))
        #expect(JSON.parse(Array("-0".utf8)) == .integer(0))
    }

    @Test func refusesWhatIsNotStrictJSONOfItsKinds() {
        let bad = [
            "", " ", "{", "}", "[1,]", "[,1]", "{\"a\":1,}", "{\"a\" 1}", "{a:1}", "{\"a\":1,\"a\":2}", "[1 2]",
            "1.5", "1e3", "1E3", "01", "-", "--1", "+1", "9223372036854775808", "-9223372036854775809",
            "12345678901234567890", "tru", "nul", "True", "\"a", "\"\\x\"", "\"\\u12\"", "\"\\ud83d\"",
            "\"\\ud83d\\u0041\"", "\"\\udc00\"", "\"a\u{1}b\"", "\"a\nb\"", "1 2", "[]]", "{}}", "\"\\u00zz\"",
        ]
        for text in bad {
            #expect(JSON.parse(Array(text.utf8)) == nil, "\(text)")
        }
        #expect(JSON.parse([0x22, 0xFF, 0x22]) == nil)  // not UTF-8
        #expect(JSON.parse([0x22, 0xC3, 0x22]) == nil)  // cut short
        // The top level is depth 0: maxDepth + 1 levels in all.
        let deep = String(repeating: "[", count: JSON.maxDepth + 2) + String(repeating: "]", count: JSON.maxDepth + 2)
        let deepest = String(repeating: "[", count: JSON.maxDepth + 1) + String(repeating: "]", count: JSON.maxDepth + 1)
        #expect(JSON.parse(Array(deep.utf8)) == nil)
        #expect(JSON.parse(Array(deepest.utf8)) != nil)
    }
}
