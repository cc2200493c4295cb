public import Glibc

/// The kernel clocks the engine and the notifier read, in nanoseconds (the
/// boot clock, read on the engine's hot paths, is `bootClockNow()`).
package enum Clocks {
    /// `CLOCK_MONOTONIC`: stops while the machine sleeps.
    package static func monotonic() -> Int64 { read(CLOCK_MONOTONIC) }

    /// `CLOCK_REALTIME`: the wall clock, which may jump either way.
    package static func realtime() -> Int64 { read(CLOCK_REALTIME) }

    /// How far the boot clock is ahead of the awake (monotonic) clock: the
    /// time this boot has spent suspended, to within a microsecond or so.
    /// The two clocks cannot be read at one instant, so the boot clock is
    /// read between two reads of the monotonic one and compared with their
    /// middle; of a few tries, the one with the shortest gap (a thread held
    /// up between the reads makes a long one).
    package static func timeSuspended() -> Int64 {
        var best = (gap: Int64.max, suspended: Int64(0))
        for _ in 0..<4 {
            let before = monotonic()
            let boot = bootClockNow()
            let after = monotonic()
            if after - before < best.gap { best = (after - before, boot - (before + (after - before) / 2)) }
            if best.gap <= 2_000 { break }
        }
        return best.suspended
    }

    private static func read(_ clock: clockid_t) -> Int64 {
        var time = timespec()
        clock_gettime(clock, &time)
        return Int64(time.tv_sec) * Nanos.perSecond + Int64(time.tv_nsec)
    }
}

/// `CLOCK_BOOTTIME` in ns: monotonic, and it keeps counting while the
/// machine sleeps, so a countdown ends in real time across a suspend. A free
/// function, not a member of `Clocks`: the engine reads it in start, resume,
/// suspend, cancel and per delivered event, and this toolchain inlines a free
/// `@inlinable` function across modules but not a static member of a
/// package enum.
@inlinable @inline(__always)
package func bootClockNow() -> Int64 {
    var time = timespec()
    clock_gettime(CLOCK_BOOTTIME, &time)
    return Int64(time.tv_sec) &* 1_000_000_000 &+ Int64(time.tv_nsec)  // a literal: a global read across modules is a call
}
