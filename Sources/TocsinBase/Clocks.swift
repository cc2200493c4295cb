public import Glibc

/// The kernel clocks the engine and the notifier read, in nanoseconds.
package enum Clocks {
    /// `CLOCK_BOOTTIME`: monotonic, and it keeps counting while the machine
    /// sleeps, so a countdown ends in real time across a suspend.
    @inlinable
    package static func boot() -> Int64 { read(CLOCK_BOOTTIME) }

    /// `CLOCK_MONOTONIC`: stops while the machine sleeps.
    package static func monotonic() -> Int64 { read(CLOCK_MONOTONIC) }

    /// `CLOCK_REALTIME`: the wall clock, which may jump either way.
    package static func realtime() -> Int64 { read(CLOCK_REALTIME) }

    @inlinable
    static func read(_ clock: clockid_t) -> Int64 {
        var time = timespec()
        clock_gettime(clock, &time)
        return Int64(time.tv_sec) * Nanos.perSecond + Int64(time.tv_nsec)
    }
}
