import Glibc

/// `CLOCK_BOOTTIME` in nanoseconds: monotonic, and it keeps counting while the
/// machine sleeps, so a countdown ends in real time across a suspend.
enum BootClock {
    static func now() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_BOOTTIME, &time)
        return Int64(time.tv_sec) * Nanos.perSecond + Int64(time.tv_nsec)
    }
}
