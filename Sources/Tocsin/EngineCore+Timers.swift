import CTocsin
import TocsinBase

/// Creating and freeing timers, their handlers, ticks and labels.
extension EngineCore {
    /// A fresh idle slot for a timer of `duration` (0: a stopwatch).
    @inline(__always)
    mutating func newSlot(duration: Int64) throws(TocsinError) -> Int32 {
        guard !closed else { throw .closed }
        guard let index = slots.allocate() else { throw .outOfMemory }
        slots[index].pointee.duration = duration
        slots[index].pointee.created = nextCreated
        nextCreated &+= 1
        prefaultAhead()
        return index
    }

    /// Frees a live timer: its handle goes stale and a batch out for
    /// delivery drops its events. Returns its Swift handler, for the caller
    /// to release once the lock is dropped.
    mutating func free(_ index: Int32) -> Unmanaged<HandlerBox>? {
        disarm(index)
        let box = takeSwiftHandler(index)
        let woke = wakes(index)
        if index == wallOwner { wallDirty = true }
        clearSideTables(index)
        if woke, index == wakeOwners.boot || index == wakeOwners.wall { rearmWake() }  // else the earliest stays
        _ = bumpBatchEpoch(for: slots.handle(of: index))  // while the handle is live
        slots.release(index)
        return box
    }

    /// Sets the handler: a C callback and its context, or (`isSwift`) a
    /// retained `HandlerBox` as the context. Returns the Swift handler it
    /// replaced, for release outside the lock.
    @inline(__always)
    mutating func installHandler(
        _ index: Int32, callback: tocsin_callback?, context: UnsafeMutableRawPointer?, isSwift: Bool
    ) -> Unmanaged<HandlerBox>? {
        let previous = takeSwiftHandler(index)
        let slot = slots[index]
        slot.pointee.callback = callback
        slot.pointee.context = context
        if isSwift { slot.pointee.flags.insert(.swiftHandler) }
        releaseHeldFinish(index)
        _ = bumpBatchEpoch(for: slots.handle(of: index))
        return previous
    }

    /// Chooses the event kinds the handler gets.
    mutating func setEvents(_ kinds: TimerEvent.Kinds, of index: Int32) {
        slots[index].pointee.muted = TimerEvent.Kinds.all.subtracting(kinds)
        releaseHeldFinish(index)
        _ = bumpBatchEpoch(for: slots.handle(of: index))
    }

    /// Drops the timer's labels, laps, ticks, held finish and the like.
    /// Empty tables are skipped: a removal hashes the key even from an
    /// empty table (about 190 instructions each), and a timer with one
    /// extra, say an adjusted duration, would pay for all nine.
    mutating func clearSideTables(_ index: Int32) {
        let flags = slots[index].pointee.flags
        if flags.contains(.extras) {
            if !labels.isEmpty { labels[index] = nil }
            if !laps.isEmpty { laps[index] = nil }
            if !heldFinishes.isEmpty { heldFinishes[index] = nil }
            if !baseDurations.isEmpty { baseDurations[index] = nil }
            if !leeways.isEmpty { leeways[index] = nil }
            if !awakeTimers.isEmpty { awakeTimers.remove(index) }
            if !alarmTimes.isEmpty { alarmTimes[index] = nil }
            if !calendars.isEmpty { calendars[index] = nil }
            if !wakeTimers.isEmpty { wakeTimers.remove(index) }
        }
        if flags.contains(.ticking) { ticks[index] = nil }
    }

    /// Clears a Swift handler from its slot and hands over its retain.
    @inline(__always)
    mutating func takeSwiftHandler(_ index: Int32) -> Unmanaged<HandlerBox>? {
        let slot = slots[index]
        guard slot.pointee.flags.contains(.swiftHandler), let context = slot.pointee.context else { return nil }
        slot.pointee.flags.remove(.swiftHandler)
        slot.pointee.context = nil
        return Unmanaged<HandlerBox>.fromOpaque(context)
    }

    /// Sets the tick interval (0: no ticks); a running timer is re-armed for
    /// the first multiple of the new interval after its running time. On
    /// failure (`.outOfMemory`) the old schedule stays.
    mutating func setTickInterval(_ interval: Int64, of index: Int32) throws(TocsinError) {
        guard slots[index].pointee.state == .running else { return applyTickInterval(interval, of: index) }
        try rearm(index) { core throws(TocsinError) in
            core.applyTickInterval(interval, of: index)
            return try core.pushDeadline(index)
        }
    }

    /// The new schedule, its first tick after the running time now.
    private mutating func applyTickInterval(_ interval: Int64, of index: Int32) {
        let slot = slots[index]
        if interval == 0 {
            ticks[index] = nil
            slot.pointee.flags.remove(.ticking)
        } else {
            var schedule = TickSchedule(interval: interval)
            schedule.resume(after: slot.pointee.runningTime(at: clockNow()))
            ticks[index] = schedule
            slot.pointee.flags.insert(.ticking)
        }
    }

    /// Chooses whether ticks all due together come as one.
    mutating func setTickPolicy(_ policy: TickPolicy, of index: Int32) {
        if policy == .coalesce {
            slots[index].pointee.flags.insert(.coalescesTicks)
        } else {
            slots[index].pointee.flags.remove(.coalescesTicks)
        }
    }

    /// Sets the label (empty: none).
    mutating func setLabel(_ label: String, of index: Int32) {
        if label.isEmpty {
            labels[index] = nil
        } else {
            labels[index] = label
            slots[index].pointee.flags.insert(.extras)
        }
    }

    /// Live slots by creation number, counting back from the newest, so the
    /// order holds across the counter's wrap.
    func liveIndicesInCreationOrder() -> [Int32] {
        var indices: [Int32] = []
        slots.forEachLive { indices.append($0) }
        let newest = nextCreated
        return indices.sorted { (newest &- slots[$0].pointee.created) > (newest &- slots[$1].pointee.created) }
    }
}
