import TocsinBase

/// Timers that wake a suspended machine (`WakeTimers`): which ones, and
/// the two wake timerfds kept armed ahead of the earliest of them.
extension EngineCore {
    /// Makes countdown, alarm or calendar alarm `index` wake the machine
    /// (or stop doing so). It rings as before either way; whether this
    /// engine can wake the machine is `canWake`.
    ///
    /// - Throws: `.invalidArgument` for a stopwatch (nothing falls due) or
    ///   an AWAKE timer (a suspend does not bring it closer).
    mutating func setWake(_ on: Bool, of index: Int32) throws(TocsinError) {
        if on {
            guard !slots[index].pointee.isStopwatch, clock(of: index) == .boot else { throw .invalidArgument }
            wakeTimers.insert(index)
            slots[index].pointee.flags.insert(.extras)
            _ = openWakeTimers()
        } else {
            wakeTimers.remove(index)
        }
        rearmWake()
    }

    /// True if timer `index` wakes the machine.
    @inline(__always)
    func wakes(_ index: Int32) -> Bool {
        !wakeTimers.isEmpty && slots[index].pointee.flags.contains(.extras) && wakeTimers.contains(index)
    }

    /// True if this engine can arm timers that wake the machine; the first
    /// call (or the first wake timer) opens the wake timerfds, and a
    /// refusal is kept as `wakeFailure`.
    mutating func openWakeTimers() -> Bool {
        if wake != nil { return true }
        guard wakeFailure == nil else { return false }
        guard kernel != nil else {
            wakeFailure = WakeFailure(errno: 0)  // a manual clock
            return false
        }
        if let failure = WakeTimers.probe() {
            wakeFailure = failure
            return false
        }
        wake = WakeTimers()
        return true
    }

    /// Arms the wake timerfds ahead of the earliest running wake timer of
    /// each kind (no system call when that has not changed). O(wake timers).
    /// A `timerfd_settime` the kernel refuses (the capability dropped since)
    /// closes them and keeps the reason.
    mutating func rearmWake() {
        guard var timers = wake else { return }

        var bootDeadline = Int64.max, wallTime = Int64.max
        for index in wakeTimers where slots[index].pointee.state == .running {
            if let time = alarmTimes[index] {
                wallTime = min(wallTime, time)
            } else {
                let slot = slots[index].pointee
                bootDeadline = min(bootDeadline, slot.deadline(forRunningTime: slot.duration))
            }
        }
        guard bootDeadline != timers.bootDeadline || wallTime != timers.wallTime else { return }
        let clocks = wallAndBootClocks()
        var failure = timers.arm(bootDeadline: bootDeadline, now: clocks.boot)
        if failure == 0 { failure = timers.arm(wallTime: wallTime, now: clocks.wall) }
        wake = timers
        if failure != 0 {
            timers.close()
            wake = nil
            wakeFailure = WakeFailure(errno: failure)
        }
    }

    /// After a change to timer `index`: re-arms the wake timers if it is one.
    @inline(__always)
    mutating func rearmWakeIfWakes(_ index: Int32) {
        if wakes(index) { rearmWake() }
    }
}
