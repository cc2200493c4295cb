import CTocsin

/// One timer's record in the engine's slot table: 80 bytes, plain data, so the
/// table is one flat allocation that grows with `realloc`.
///
/// Running time at clock time `t` is `banked + (t - segmentStart)` while
/// running, `banked` otherwise. Deadlines are derived from it, never counted.
struct TimerSlot {
    /// Countdown length in ns; 0 for a stopwatch.
    var duration: Int64 = 0
    /// Running time banked before the current running segment. While the
    /// slot is free: the index of the next free slot, or -1.
    var banked: Int64 = 0
    /// Clock time at which the current running segment began.
    var segmentStart: Int64 = 0
    /// Tick interval in ns; 0 for no ticks.
    var tickInterval: Int64 = 0
    /// Number of the next tick to deliver.
    var nextTick: UInt64 = 1
    /// The key of this timer's live entry in the deadline heap; 0 if none.
    var armKey: UInt64 = 0
    /// Running time at the last lap (0 at start).
    var lapMark: Int64 = 0
    var callback: tocsin_callback? = nil
    /// The C callback's user_data, or a retained `HandlerBox` (see `flags`).
    var context: UnsafeMutableRawPointer? = nil
    var generation: UInt16 = 0
    var state: TimerState = .idle
    var flags: Flags = []

    struct Flags: OptionSet {
        let rawValue: UInt8
        static let stopwatch = Flags(rawValue: 1 << 0)
        static let free = Flags(rawValue: 1 << 1)
        /// `context` is a retained `HandlerBox` for a Swift closure.
        static let swiftHandler = Flags(rawValue: 1 << 2)
        static let hasLabel = Flags(rawValue: 1 << 3)
        static let hasLaps = Flags(rawValue: 1 << 4)
    }

    var isStopwatch: Bool { flags.contains(.stopwatch) }
    var hasHandler: Bool { callback != nil || flags.contains(.swiftHandler) }

    /// Running time at clock time `now`, pinned to the duration of a countdown.
    func runningTime(at now: Int64) -> Int64 {
        let running = state == .running ? banked.addingSaturated(now - segmentStart) : banked
        return isStopwatch ? running : min(running, duration)
    }

    /// Countdown: time left at `now` (never negative). Stopwatch: nil.
    func remaining(at now: Int64) -> Int64? {
        isStopwatch ? nil : duration - runningTime(at: now)
    }

    /// The next event due on this timer in running time: the next tick, or the
    /// finish (a tick at or after the finish is folded into it). Nil when
    /// nothing will ever fall due (a stopwatch without ticks).
    func nextDue() -> (runningTime: Int64, isTick: Bool)? {
        if tickInterval > 0 {
            let (at, overflow) = Int64(clamping: nextTick).multipliedReportingOverflow(by: tickInterval)
            if !overflow && (isStopwatch || at < duration) {
                return (at, true)
            }
        }
        return isStopwatch ? nil : (duration, false)
    }

    /// The clock time at which running time reaches `runningTime` in the
    /// current segment (pinned on overflow).
    func deadline(forRunningTime runningTime: Int64) -> Int64 {
        segmentStart.addingSaturated(runningTime - banked)
    }

    /// The first tick after `runningTime`: ticks already passed are not replayed.
    static func firstTick(after runningTime: Int64, interval: Int64) -> UInt64 {
        interval > 0 ? UInt64(runningTime / interval) + 1 : 1
    }
}
