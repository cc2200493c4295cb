/// A timer's handle within its engine, the same value as C's `tocsin_timer`.
///
/// Never 0. Handles are not reused for the life of an engine, and a handle of
/// one engine is unknown to every other engine.
public struct TimerID: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt64

    @inlinable
    public init(rawValue: UInt64) {
        self.rawValue = rawValue
    }

    public var description: String {
        "TimerID(0x\(String(rawValue, radix: 16)))"
    }
}
