extension TimerEvent {
    /// A set of event kinds, for `TimerEngine.setEventKinds(_:for:)`. The raw
    /// value of each kind is `1 << kind.rawValue`: C's `TOCSIN_EVENTS_*` bits.
    public struct Kinds: OptionSet, Sendable, Hashable {
        public let rawValue: UInt32

        public init(rawValue: UInt32) {
            self.rawValue = rawValue
        }

        /// The set holding just `kind`.
        public init(_ kind: Kind) {
            rawValue = 1 << UInt32(kind.rawValue)
        }

        public static var tick: Kinds { Kinds(.tick) }
        public static var stateChange: Kinds { Kinds(.stateChange) }
        public static var finish: Kinds { Kinds(.finish) }
        /// Every kind: what a handler gets unless told otherwise.
        public static var all: Kinds { [.tick, .stateChange, .finish] }
    }
}
