import CTocsinSystem
import Glibc

/// The timers that wake a suspended machine: up to two timerfds on the kernel's
/// ALARM clocks (`CLOCK_BOOTTIME_ALARM` for countdowns, `CLOCK_REALTIME_ALARM`
/// for wall-clock and calendar alarms), each armed `lead` before the
/// earliest deadline of its kind. They only wake the machine: nobody reads
/// them (they are not in the epoll set), and the timer itself still rings
/// on the engine's own kernel timer at its exact time.
///
/// The kernel allows them only with `CAP_WAKE_ALARM` (checked when a
/// timerfd is created and again at every `timerfd_settime`, EPERM), and
/// only where an RTC can wake the machine (EINVAL without one).
struct WakeTimers {
    /// How long before a deadline the machine is woken: the time for the
    /// system, and its sound server, to come back (KAlarm wakes 2 minutes
    /// early too). `TOCSIN_WAKE_LEAD_SECONDS`.
    static var lead: Int64 { 120 * Nanos.perSecond }

    /// Open only while armed: a disarmed ALARM timerfd still reports its
    /// old expiry (in fdinfo and `timerfd_gettime`), so one that reads
    /// armed would be indistinguishable from one that is.
    private(set) var bootFD: Int32 = -1
    private(set) var wallFD: Int32 = -1
    /// What each is armed for (the deadline it wakes ahead of); `.max`: disarmed.
    private(set) var bootDeadline = Int64.max
    private(set) var wallTime = Int64.max

    /// Nil if the kernel lets this process create both ALARM timerfds
    /// (they are closed again), else why not.
    static func probe() -> WakeFailure? {
        for clock in [CLOCK_BOOTTIME_ALARM, CLOCK_REALTIME_ALARM] {
            let fd = timerfd_create(clock, Int32(TFD_CLOEXEC | TFD_NONBLOCK))
            guard fd >= 0 else { return WakeFailure(errno: errno) }
            Glibc.close(fd)
        }
        return nil
    }

    /// Arms the boot-clock wake timer to wake the machine ahead of
    /// `deadline` (boot clock, ns; `.max` disarms it), given the boot clock
    /// `now`. 0, or the errno of what the kernel refused.
    mutating func arm(bootDeadline deadline: Int64, now: Int64) -> Int32 {
        guard deadline != bootDeadline else { return 0 }
        bootDeadline = deadline
        return Self.set(&bootFD, clock: CLOCK_BOOTTIME_ALARM, at: Self.wakeTime(for: deadline, now: now))
    }

    /// As `arm(bootDeadline:)`, for a wall-clock time (Unix ns) and the wall
    /// clock `now`. An absolute `CLOCK_REALTIME_ALARM` timer follows changes
    /// of the wall clock by itself.
    mutating func arm(wallTime time: Int64, now: Int64) -> Int32 {
        guard time != wallTime else { return 0 }
        wallTime = time
        return Self.set(&wallFD, clock: CLOCK_REALTIME_ALARM, at: Self.wakeTime(for: time, now: now))
    }

    /// `lead` before the deadline, or the deadline itself when that is
    /// already past: a machine suspended within the lead still wakes.
    static func wakeTime(for deadline: Int64, now: Int64) -> Int64 {
        guard deadline != .max else { return .max }
        let early = deadline - lead
        return early > now ? early : deadline
    }

    /// Arms `fd` (opened on `clock` if closed) for absolute `time`, or
    /// closes it for `.max`. 0, or the errno of the refused call.
    private static func set(_ fd: inout Int32, clock: Int32, at time: Int64) -> Int32 {
        guard time != .max else {
            if fd >= 0 { Glibc.close(fd) }
            fd = -1
            return 0
        }
        if fd < 0 {
            fd = timerfd_create(clock, Int32(TFD_CLOEXEC | TFD_NONBLOCK))
            guard fd >= 0 else { return errno }
        }
        var spec = itimerspec()
        let at = max(time, 1)  // an all-zero time would disarm
        spec.it_value.tv_sec = Int(at / Nanos.perSecond)
        spec.it_value.tv_nsec = Int(at % Nanos.perSecond)
        return timerfd_settime(fd, Int32(TFD_TIMER_ABSTIME), &spec, nil) == 0 ? 0 : errno
    }

    func close() {
        if bootFD >= 0 { Glibc.close(bootFD) }
        if wallFD >= 0 { Glibc.close(wallFD) }
    }
}

/// Why this process cannot arm timers that wake the machine.
struct WakeFailure: Equatable {
    var errno: Int32

    /// `tocsin_engine_wake_reason`'s text.
    var reason: String {
        switch errno {
        case 0:
            "this engine runs on a manual clock: no kernel timer wakes anything"
        case EPERM:
            "no CAP_WAKE_ALARM: this process may not set timers that wake the machine "
                + "(give it the capability: AmbientCapabilities=CAP_WAKE_ALARM in its systemd unit, "
                + "or pam_systemd's for local sessions from systemd 254 on)"
        case EINVAL:
            "no wake-capable clock: the kernel has no RTC that can wake this machine (CLOCK_BOOTTIME_ALARM refused)"
        default:
            "the wake timers could not be set (errno \(errno))"
        }
    }
}
