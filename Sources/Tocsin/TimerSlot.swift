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
    /// path (and none for ThreadSanitizer to report). A stopwatch is a slot
    /// with duration 0, so it needs no bit.
    struct Flags: OptionSet {
        let rawValue: UInt8
        static var free: Flags { Flags(rawValue: 1 << 0) }
        /// `context` is a retained `HandlerBox` for a Swift closure.
        static var swiftHandler: Flags { Flags(rawValue: 1 << 1) }
        /// May have entries in the rare side tables: `labels`, `laps`,
        /// `heldFinishes` (restored as having run out while the program was
        /// away: its FINISH waits there until a handler wants it), or
        /// `baseDurations` (adjusted: the duration to restart from).
        static var extras: Flags { Flags(rawValue: 1 << 2) }
        static var ticking: Flags { Flags(rawValue: 1 << 3) }
        /// Ticks all due together are delivered as one (`TickPolicy.coalesce`).
        static var coalescesTicks: Flags { Flags(rawValue: 1 << 4) }
        /// Bits 5-7: the event kinds the handler does not want (see `muted`).
        static var mutedKinds: Flags { Flags(rawValue: 0b1110_0000) }
    }

    var isStopwatch: Bool { duration == 0 }
    var hasHandler: Bool { callback != nil || flags.contains(.swiftHandler) }

    /// The event kinds kept from the handler (`setEvents`); none by default.
    var muted: TimerEvent.Kinds {
        get { TimerEvent.Kinds(rawValue: UInt32(flags.rawValue & Flags.mutedKinds.rawValue) >> 4) }
        set {
            let bits = UInt8(truncatingIfNeeded: (newValue.rawValue & TimerEvent.Kinds.all.rawValue) << 4)
            flags = Flags(rawValue: (flags.rawValue & ~Flags.mutedKinds.rawValue) | bits)
        }
    }

    /// True if the handler is there and wants events of this kind.
    @inline(__always)
    func wants(_ kind: TimerEvent.Kind) -> Bool {
        hasHandler && !muted.contains(TimerEvent.Kinds(kind))
    }

    /// Running time at clock time `now`, pinned to the duration of a countdown.
    @inline(__always)
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
    @inline(__always)
    func deadline(forRunningTime runningTime: Int64) -> Int64 {
        anchor.addingSaturated(runningTime)
    }

    /// The next event due on this timer in running time: the next tick, or the
    /// finish (a tick at or after the finish is folded into it). Nil when
    /// nothing will ever fall due (a stopwatch without ticks).
    @inline(__always)
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
    /// Ticks folded away by a round's tick budget (`EngineCore.tickBurst`)
    /// before tick `next`: its event reports them as `missed`.
    var folded: UInt64 = 0

    /// A new run: tick 1 comes next.
    mutating func restart() {
        (next, folded) = (1, 0)
    }

    /// Running time at which tick `next` falls due; nil past `Int64`.
    var dueTime: Int64? {
        let (at, overflow) = Int64(clamping: next).multipliedReportingOverflow(by: interval)
        return overflow ? nil : at
    }

    /// Numbering carries on from `runningTime`: ticks already passed are not replayed.
    mutating func resume(after runningTime: Int64) {
        next = UInt64(max(0, runningTime) / interval) + 1
        folded = 0
    }
}

/// The laps of a timer's current run.
struct LapRecord {
    /// Running time at the last lap.
    var mark: Int64 = 0
    var lengths: [Int64] = []
}
