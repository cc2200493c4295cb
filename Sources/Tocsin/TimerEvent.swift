/// One event delivered to a timer's handler.
public struct TimerEvent: Sendable, Hashable {
    /// What the event reports; raw values are C's `TOCSIN_EVENT_*`.
    public enum Kind: Int32, Sendable, CustomStringConvertible {
        /// Tick `tick`: `tick` x interval of running time has passed.
        case tick = 1
        /// The timer changed state to `state`.
        case stateChange = 2
        /// A countdown ran out; a `stateChange` to `.finished` follows.
        case finish = 3

        public var description: String {
            switch self {
            case .tick: "tick"
            case .stateChange: "state"
            case .finish: "finish"
            }
        }
    }

    public var kind: Kind
    /// The timer's state after this event.
    public var state: TimerState
    public var timer: TimerID
    /// Running time (suspended time excluded); on a tick exactly `tick` x interval.
    public var elapsed: Duration
    /// Countdown: time left (zero on finish). Stopwatch: nil.
    public var remaining: Duration?
    /// 1-based tick number on `.tick`, else 0.
    public var tick: UInt64
    /// From the event's due time to its delivery; zero on a manual clock.
    public var lateness: Duration
    /// On a TICK of a timer whose ticks coalesce (`TickPolicy.coalesce`): how
    /// many ticks before `tick` were skipped because they were all due
    /// together; 0 otherwise.
    public var missed: UInt64

    public init(
        kind: Kind, state: TimerState, timer: TimerID, elapsed: Duration,
        remaining: Duration?, tick: UInt64, lateness: Duration, missed: UInt64 = 0
    ) {
        self.kind = kind
        self.state = state
        self.timer = timer
        self.elapsed = elapsed
        self.remaining = remaining
        self.tick = tick
        self.lateness = lateness
        self.missed = missed
    }
}
