import CTocsinSystem
import Glibc

/// The one kernel timer of a real-clock engine and the fd a host polls.
///
/// An epoll set holds a timerfd on `CLOCK_BOOTTIME`, armed with an absolute
/// nanosecond deadline (no timer slack, unlike poll timeouts), and an eventfd
/// that says "events are queued". The epoll fd is readable while either is.
///
/// A second timerfd, on `CLOCK_REALTIME`, is armed only while alarms run:
/// for the earliest alarm's wall time, with `TFD_TIMER_CANCEL_ON_SET`, so it
/// also turns readable when the wall clock is set (either way).
struct KernelWakeup {
    let pollFD: Int32
    private let timerFD: Int32
    private let eventFD: Int32
    private let wallTimerFD: Int32

    /// Opens the three fds, or throws `.io` (closing what was opened).
    static func open() throws(TocsinError) -> KernelWakeup {
        let pollFD = epoll_create1(Int32(EPOLL_CLOEXEC))
        let timerFD = timerfd_create(CLOCK_BOOTTIME, Int32(TFD_CLOEXEC | TFD_NONBLOCK))
        let eventFD = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
        let wallTimerFD = timerfd_create(CLOCK_REALTIME, Int32(TFD_CLOEXEC | TFD_NONBLOCK))
        let wakeup = KernelWakeup(pollFD: pollFD, timerFD: timerFD, eventFD: eventFD, wallTimerFD: wallTimerFD)
        guard pollFD >= 0, timerFD >= 0, eventFD >= 0, wallTimerFD >= 0,
              wakeup.watch(timerFD), wakeup.watch(eventFD), wakeup.watch(wallTimerFD)
        else {
            wakeup.close()
            throw .io
        }
        return wakeup
    }

    private func watch(_ fd: Int32) -> Bool {
        var event = epoll_event()
        event.events = EPOLLIN.rawValue
        event.data.fd = fd
        return epoll_ctl(pollFD, EPOLL_CTL_ADD, fd, &event) == 0
    }

    /// Arms the timer for an absolute boot-clock time; `Int64.max` disarms it.
    /// Re-arming also clears an expiry that was not read.
    func arm(at deadline: Int64) {
        Self.arm(timerFD, at: deadline, flags: TFD_TIMER_ABSTIME)
    }

    /// Arms the wall-clock timer for a Unix time in ns; `Int64.max` disarms
    /// it, and without `TFD_TIMER_CANCEL_ON_SET`: a disarmed timer armed with
    /// it would still turn readable at every clock change, and the engine
    /// reads it only while alarms run (its thread would spin).
    func armWall(at time: Int64) {
        Self.arm(wallTimerFD, at: time, flags: time == .max ? TFD_TIMER_ABSTIME : TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET)
    }

    /// True if the wall-clock timer expired or the wall clock was set since
    /// it was armed; reading it clears that.
    func takeWallClockNews() -> Bool {
        var count: UInt64 = 0
        return read(wallTimerFD, &count, MemoryLayout<UInt64>.size) == MemoryLayout<UInt64>.size || errno == ECANCELED
    }

    private static func arm(_ fd: Int32, at deadline: Int64, flags: Int) {
        var spec = itimerspec()
        if deadline != .max {
            let at = max(deadline, 1)  // an all-zero time would disarm
            spec.it_value.tv_sec = Int(at / Nanos.perSecond)
            spec.it_value.tv_nsec = Int(at % Nanos.perSecond)
        }
        timerfd_settime(fd, Int32(flags), &spec, nil)
    }

    /// Makes the poll fd readable until `clearSignal`.
    func signal() {
        var one: UInt64 = 1
        _ = write(eventFD, &one, MemoryLayout<UInt64>.size)
    }

    func clearSignal() {
        var count: UInt64 = 0
        _ = read(eventFD, &count, MemoryLayout<UInt64>.size)
    }

    /// Blocks until the timer expires or a signal is raised.
    func wait() {
        var event = epoll_event()
        while epoll_wait(pollFD, &event, 1, -1) < 0 && errno == EINTR {}
    }

    func close() {
        for fd in [pollFD, timerFD, eventFD, wallTimerFD] where fd >= 0 {
            Glibc.close(fd)
        }
    }
}
