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
            rearmWakeIfWakes(index)
        } else {
            wakeTimers.remove(index)
            if index == wakeOwners.boot || index == wakeOwners.wall { rearmWake() }  // else the earliest stays
        }
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
    /// each kind (no system call when that has not changed). O(wake
    /// timers): after a change to one timer, `rearmWakeIfWakes` is O(1)
    /// unless that timer is one the timerfds are armed for.
    mutating func rearmWake() {
        guard wake != nil else { return }
        wakeDirty = false
        var bootDeadline = Int64.max, wallTime = Int64.max
        var owners: (boot: Int32, wall: Int32) = (-1, -1)
        for index in wakeTimers {
            let (boot, wall) = wakeDeadlines(of: index)
            if boot < bootDeadline { (bootDeadline, owners.boot) = (boot, index) }
            if wall < wallTime { (wallTime, owners.wall) = (wall, index) }
        }
        armWake(bootDeadline: bootDeadline, wallTime: wallTime, owners: owners)
    }

    /// When wake timer `index` falls due: on the boot clock, or (an alarm)
    /// at its wall time; `.max` for the other kind, or if it is not running.
    private func wakeDeadlines(of index: Int32) -> (boot: Int64, wall: Int64) {
        let slot = slots[index].pointee
        guard slot.state == .running else { return (.max, .max) }
        if let time = alarmTimes[index] { return (.max, time) }
        return (slot.deadline(forRunningTime: slot.duration), .max)
    }

    /// Arms the timerfds for these times (no system call for one already
    /// armed). A `timerfd_settime` the kernel refuses (the capability
    /// dropped since) closes them and keeps the reason.
    private mutating func armWake(bootDeadline: Int64, wallTime: Int64, owners: (boot: Int32, wall: Int32)) {
        guard var timers = wake else { return }
        wakeOwners = owners
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

    /// After a change to timer `index` (and to no other wake timer): re-arms
    /// the wake timerfds if it is a wake timer. O(1) unless it is one of
    /// those they are armed for (then it may have moved later or stopped:
    /// a rescan), since the earliest of the others has not moved.
    @inline(__always)
    mutating func rearmWakeIfWakes(_ index: Int32) {
        if wakes(index) { followWakeTimer(index) }  // the check inline, on every call's path; the rest not
    }

    @inline(never)
    private mutating func followWakeTimer(_ index: Int32) {
        guard let timers = wake else { return }
        guard index != wakeOwners.boot, index != wakeOwners.wall else { return rearmWake() }
        let (boot, wall) = wakeDeadlines(of: index)
        guard boot < timers.bootDeadline || wall < timers.wallTime else { return }
        var owners = wakeOwners
        if boot < timers.bootDeadline { owners.boot = index }
        if wall < timers.wallTime { owners.wall = index }
        armWake(bootDeadline: min(boot, timers.bootDeadline), wallTime: min(wall, timers.wallTime), owners: owners)
    }
}
