import CTocsin

/// One timer's record in the engine's slot table: 48 bytes of plain data, so
/// the table is one flat allocation that grows with `realloc`. Ticks and laps,
/// which few timers use, live in side tables keyed by slot.
///
/// Running time is one field, `anchor`: while running it is the clock time at
/// which running time was zero (running time = now - anchor); otherwise it is
/// the running time itself. Deadlines are derived from it, never counted.
struct TimerSlot {
    /// Countdown length in ns; 0 for a stopwatch.
    var duration: Int64 = 0
    /// See the type's comment. While the slot is free: the next free slot, or -1.
    var anchor: Int64 = 0
    /// The key of this timer's live entry in the deadline heap; 0 if none.
    var armKey: UInt64 = 0
    var callback: tocsin_callback? = nil
    /// The C callback's user_data, or a retained `HandlerBox` (see `flags`).
    var context: UnsafeMutableRawPointer? = nil
    var generation: UInt16 = 0
    var state: TimerState = .idle
    var flags: Flags = []
    /// Creation number (wrapping), for listing timers in creation order; it
    /// sits in what would otherwise be padding.
    var created: UInt32 = 0

    /// Computed, not stored statics: no lazily initialized globals on the hot
    /// path (and none for ThreadSanitizer to report).
    struct Flags: OptionSet {
        let rawValue: UInt8
        static var stopwatch: Flags { Flags(rawValue: 1 << 0) }
        static var free: Flags { Flags(rawValue: 1 << 1) }
        /// `context` is a retained `HandlerBox` for a Swift closure.
        static var swiftHandler: Flags { Flags(rawValue: 1 << 2) }
        static var hasLabel: Flags { Flags(rawValue: 1 << 3) }
        static var hasLaps: Flags { Flags(rawValue: 1 << 4) }
        static var ticking: Flags { Flags(rawValue: 1 << 5) }
        /// Restored as having run out while the program was away: its FINISH
        /// waits (in `heldFinishes`) until a handler is set.
        static var heldFinish: Flags { Flags(rawValue: 1 << 6) }
        /// Has an event in a batch out for delivery (TimerEngine+Batch.swift).
        static var batched: Flags { Flags(rawValue: 1 << 7) }
    }

    var isStopwatch: Bool { flags.contains(.stopwatch) }
    var hasHandler: Bool { callback != nil || flags.contains(.swiftHandler) }

    /// Running time at clock time `now`, pinned to the duration of a countdown.
    func runningTime(at now: Int64) -> Int64 {
        let running = state == .running ? now.subtractingSaturated(anchor) : anchor
        return isStopwatch ? running : min(running, duration)
    }

    /// Countdown: time left once `runningTime` has run. Stopwatch: nil.
    func remaining(after runningTime: Int64) -> Int64? {
        isStopwatch ? nil : duration - runningTime
    }

    /// Leaves the running state: `anchor` becomes the running time at `now`.
    mutating func hold(at now: Int64) {
        anchor = runningTime(at: now)
    }

    /// Enters the running state at `now`, carrying on from the held running time.
    mutating func run(at now: Int64) {
        anchor = now.subtractingSaturated(anchor)
    }

    /// The clock time at which a running timer reaches `runningTime`.
    func deadline(forRunningTime runningTime: Int64) -> Int64 {
        anchor.addingSaturated(runningTime)
    }

    /// The next event due on this timer in running time: the next tick, or the
    /// finish (a tick at or after the finish is folded into it). Nil when
    /// nothing will ever fall due (a stopwatch without ticks).
    func nextDue(ticks: TickSchedule?) -> (runningTime: Int64, isTick: Bool)? {
        if let ticks, let at = ticks.dueTime, isStopwatch || at < duration {
            return (at, true)
        }
        return isStopwatch ? nil : (duration, false)
    }
}

/// A ticking timer's schedule: tick `next` is due at `next` x `interval` of
/// running time.
struct TickSchedule {
    var interval: Int64
    var next: UInt64 = 1

    /// Running time at which tick `next` falls due; nil past `Int64`.
    var dueTime: Int64? {
        let (at, overflow) = Int64(clamping: next).multipliedReportingOverflow(by: interval)
        return overflow ? nil : at
    }

    /// Numbering carries on from `runningTime`: ticks already passed are not replayed.
    mutating func resume(after runningTime: Int64) {
        next = UInt64(max(0, runningTime) / interval) + 1
    }
}

/// The laps of a timer's current run.
struct LapRecord {
    /// Running time at the last lap.
    var mark: Int64 = 0
    var lengths: [Int64] = []
}
