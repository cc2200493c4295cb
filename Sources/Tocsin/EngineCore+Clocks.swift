import TocsinBase

/// The clocks other than the boot clock.
///
/// Every timer's running time is kept on the boot clock, and the heap and
/// the kernel timer know only that clock. The other clocks are reached by
/// moving timers on when those clocks part from it:
/// - An AWAKE timer does not count time suspended. When the boot clock has
///   gained on the awake clock since the last look (`suspendedSeen`), every
///   running AWAKE timer's anchor moves on by the gain. The engine looks
///   before it touches an AWAKE timer and when one falls due, so a suspend
///   is never counted (after one, the kernel timer may wake the engine
///   early once, for nothing).
/// - An alarm rings when the wall clock reaches its time. It is a countdown
///   whose duration is re-aimed (`aim`) whenever the wall clock's lead over
///   the boot clock changes: when it is started or resumed, when the
///   kernel's wall timer reports the clock set or the alarm time reached,
///   when the manual wall clock is set, and whenever one falls due
///   before the wall clock reads its time (it is then not delivered).
extension EngineCore {
    // MARK: - Reading the clocks

    /// The time this boot has spent suspended (manual: simulated), in ns.
    func timeSuspended() -> Int64 {
        delivery == .manualClock ? manualSuspended : Clocks.timeSuspended()
    }

    /// The wall clock (Unix time in ns) and the boot clock, read together.
    /// Real clocks: the wall clock first, so that the wall clock's lead
    /// comes out short by the time between the reads, never long: an alarm
    /// aimed with it is late by that time, never early.
    func wallAndBootClocks() -> (wall: Int64, boot: Int64) {
        if delivery == .manualClock { return (manualNow.addingSaturated(manualWallLead), manualNow) }
        let wall = Clocks.realtime()
        return (wall, bootClockNow())
    }

    /// The wall clock in Unix ns (manual: simulated).
    func wallClock() -> Int64 { wallAndBootClocks().wall }

    // MARK: - Awake timers

    /// Puts an idle timer on `clock`.
    mutating func setClock(_ clock: TimerClock, of index: Int32) throws(TocsinError) {
        guard slots[index].pointee.state == .idle else { throw .wrongState }
        guard clock == .boot || alarmTimes[index] == nil else { throw .invalidArgument }
        switch clock {
        case .boot:
            awakeTimers.remove(index)
        case .awake:
            if awakeTimers.isEmpty { suspendedSeen = timeSuspended() }
            awakeTimers.insert(index)
            slots[index].pointee.flags.insert(.extras)
        }
    }

    func clock(of index: Int32) -> TimerClock {
        slots[index].pointee.flags.contains(.extras) && awakeTimers.contains(index) ? .awake : .boot
    }

    /// Brings timer `index` up to date with the clocks before a call reads
    /// or changes it: AWAKE timers past a suspend, an idle or suspended
    /// alarm re-aimed (its time left shrinks as the wall clock goes on).
    @inline(__always)
    mutating func catchUpClocks(of index: Int32) {
        guard slots[index].pointee.flags.contains(.extras) else { return }
        if !awakeTimers.isEmpty { _ = catchUpAwakeTimers() }
        if !alarmTimes.isEmpty, alarmTimes[index] != nil {
            let state = slots[index].pointee.state
            if state == .idle || state == .suspended || state == .canceled {
                let clocks = wallAndBootClocks()
                if state != .suspended, isCalendar(index) { followOccurrences(index, wall: clocks.wall) }
                if state != .canceled {
                    aim(index, wallLead: clocks.wall.subtractingSaturated(clocks.boot), at: clocks.boot)
                }
            }
        }
    }

    /// Moves every running AWAKE timer on past the time suspended since the
    /// last look, and re-pushes it. Real clocks: gains under 100 µs are the
    /// clocks' read error, not a suspend. True if any timer moved.
    @discardableResult
    mutating func catchUpAwakeTimers() -> Bool {
        let suspended = timeSuspended()
        let gain = suspended - suspendedSeen
        guard gain > (delivery == .manualClock ? 0 : 100_000) else { return false }
        // Out of memory for the heap: try again at the next look.
        guard heap.reserve(heap.count + awakeTimers.count) else { return false }
        suspendedSeen = suspended
        let running = inArmOrder(awakeTimers.filter { slots[$0].pointee.state == .running })
        for index in running {
            let wasArmed = slots[index].pointee.armKey != 0
            disarm(index)
            slots[index].pointee.anchor = slots[index].pointee.anchor.addingSaturated(gain)
            if wasArmed, let deadline = try? pushDeadline(index) { armKernelTimer(by: deadline) }
        }
        return !running.isEmpty
    }

    /// Timers in the order they were armed (unarmed ones last), so that
    /// re-pushing them keeps their start order for events due together.
    func inArmOrder(_ indices: some Sequence<Int32>) -> [Int32] {
        indices.sorted { (slots[$0].pointee.armKey &- 1) < (slots[$1].pointee.armKey &- 1) }
    }

    // MARK: - The simulated machine (manual clock)

    /// Jumps the manual clocks: boot and wall by `step`, the awake clock
    /// only if `suspended` is false. The caller delivers what fell due.
    mutating func jumpManualClocks(by step: Int64, suspended: Bool) {
        manualNow += step
        if suspended {
            manualSuspended += step
            catchUpAwakeTimers()
        }
    }

    /// Sets the manual wall clock to `time` (Unix ns) and re-aims the alarms.
    mutating func setManualWallClock(_ time: Int64) {
        manualWallLead = time - manualNow
        reaimAlarms()
    }
}
