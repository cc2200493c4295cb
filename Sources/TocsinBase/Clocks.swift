public import Glibc

/// The kernel clocks the engine and the notifier read, in nanoseconds.
package enum Clocks {
    /// `CLOCK_BOOTTIME`: monotonic, and it keeps counting while the machine
    /// sleeps, so a countdown ends in real time across a suspend.
    @inlinable @inline(__always)
    package static func boot() -> Int64 { bootClockNow() }

    /// `CLOCK_MONOTONIC`: stops while the machine sleeps.
    package static func monotonic() -> Int64 { read(CLOCK_MONOTONIC) }

    /// `CLOCK_REALTIME`: the wall clock, which may jump either way.
    package static func realtime() -> Int64 { read(CLOCK_REALTIME) }

    /// Inlined into the engine's start and resume (a literal, not
    /// `Nanos.perSecond`: a stored global read across modules is a call).
    @inlinable @inline(__always)
    static func read(_ clock: clockid_t) -> Int64 {
        var time = timespec()
        clock_gettime(clock, &time)
        return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
    }
}

/// `Clocks.boot()`, as a free function: the engine's start and resume read
/// it, and a static member of a package enum is not inlined across modules
/// here (a call each), while a free `@inlinable` function is.
@inlinable @inline(__always)
package func bootClockNow() -> Int64 {
    var time = timespec()
    clock_gettime(CLOCK_BOOTTIME, &time)
    return Int64(time.tv_sec) &* 1_000_000_000 &+ Int64(time.tv_nsec)
}
