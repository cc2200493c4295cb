/// A timer's state; the raw values are C's `TOCSIN_IDLE` ... `TOCSIN_CANCELED`.
public enum TimerState: Int32, Sendable, CaseIterable, BitwiseCopyable, CustomStringConvertible {
    /// Created, never started.
    case idle = 0
    /// Time is running.
    case running = 1
    /// Time is held; resuming carries on exactly where it stopped.
    case suspended = 2
    /// A countdown ran out. Stopwatches never finish.
    case finished = 3
    /// Cancelled while running or suspended.
    case canceled = 4

    public var description: String {
        switch self {
        case .idle: "idle"
        case .running: "running"
        case .suspended: "suspended"
        case .finished: "finished"
        case .canceled: "canceled"
        }
    }

    /// `start` is allowed from here: never started, or the last run is over.
    @inline(__always)
    var canStart: Bool { self == .idle || self == .finished || self == .canceled }
}
