import Testing
@testable import Tocsin

/// Seconds from the C API to nanoseconds: the fast rounding must agree with
/// `rounded()` (half away from zero) everywhere.
@Suite struct NanosTests {
    static func reference(_ seconds: Double) -> Int64? {
        guard seconds.isFinite, seconds >= 0, seconds <= Nanos.maxSeconds else { return nil }
        let nanos = Int64((seconds * 1e9).rounded())
        return seconds > 0 ? max(nanos, 1) : 0
    }

    @Test func edgeCasesRoundHalfAwayFromZero() {
        let cases: [Double] = [
            0, 1e-12, 0.4e-9, 0.5e-9, 1.5e-9, 2.5e-9, 0.49999999999999994e-9, 1e-9, 0.1, 1, 60,
            4503599.627370496, 4503599.627370497, 4503599.6273704955, 9007199.254740993,
            86_400 * 365.25 * 100, Nanos.maxSeconds, Nanos.maxSeconds.nextDown,
        ]
        for seconds in cases {
            #expect(Nanos.from(seconds: seconds) == Self.reference(seconds), "\(seconds)")
        }
        for bad in [-1e-9, (-0.0).nextDown, .nan, .infinity, -.infinity, Nanos.maxSeconds.nextUp] {
            #expect(Nanos.from(seconds: bad) == nil)
        }
    }

    @Test func agreesWithRoundedForSeededValuesAtEveryScale() {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for _ in 0..<200_000 {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            // A random mantissa at a random scale from 1e-12 s to 1e9 s.
            let mantissa = Double(state >> 11) / Double(1 << 53)
            let seconds = mantissa * Double(sign: .plus, exponent: Int(state % 70) - 40, significand: 1)
            #expect(Nanos.from(seconds: seconds) == Self.reference(seconds))
        }
    }
}
