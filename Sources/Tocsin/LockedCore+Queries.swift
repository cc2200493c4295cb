package import CTocsin

/// The calls of `LockedCore+Calls` that read (state, times, the timers),
/// observers, and saving and loading: each takes the lock once.
extension LockedCore {
    package func state(of timer: TimerID) throws(TocsinError) -> TimerState {
        try withTimer(timer) { core, index in core.slots[index].pointee.state }
    }

    package func elapsedNanoseconds(of timer: TimerID) throws(TocsinError) -> Int64 {
        try withTimer(timer) { core, index in core.slots[index].pointee.runningTime(at: core.clockNow()) }
    }

    package func remainingNanoseconds(of timer: TimerID) throws(TocsinError) -> Int64? {
        try withTimer(timer) { core, index in
            var wall: Int64?
            return core.remaining(of: index, elapsed: core.slots[index].pointee.runningTime(at: core.clockNow()), wall: &wall)
        }
    }

    package func durationNanoseconds(of timer: TimerID) throws(TocsinError) -> Int64? {
        try withTimer(timer) { core, index in
            let slot = core.slots[index].pointee
            return slot.isStopwatch ? nil : slot.duration
        }
    }

    package func lapNanoseconds(of timer: TimerID) throws(TocsinError) -> [Int64] {
        try withTimer(timer) { core, index in core.laps[index]?.lengths ?? [] }
    }

    package func nowNanoseconds() throws(TocsinError) -> Int64 {
        try withOpenCore { core in core.clockNow() }
    }

    package func timerCount() throws(TocsinError) -> Int {
        try withOpenCore { core in core.slots.live }
    }

    package func timers() throws(TocsinError) -> [TimerID] {
        try withOpenCore { core in
            core.liveIndicesInCreationOrder().map { TimerID(rawValue: core.slots.handle(of: $0)) }
        }
    }

    package func pollFileDescriptor() throws(TocsinError) -> Int32 {
        try withOpenCore { core throws(TocsinError) in
            guard core.delivery == .polled, let kernel = core.kernel else { throw .wrongState }
            return kernel.pollFD
        }
    }

    // MARK: - Observers and the timer file

    /// Adds an observer (its id is filled in here).
    func addObserver(_ observer: Observer) throws(TocsinError) -> ObserverID {
        try withOpenCore { core in
            var observer = observer
            observer.id = core.nextObserverID
            core.nextObserverID += 1
            core.observers.append(observer)
            _ = core.bumpBatchEpoch(for: nil)  // a batch out for delivery picks it up
            return ObserverID(rawValue: observer.id)
        }
    }

    package func addObserver(callback: tocsin_callback, context: UnsafeMutableRawPointer?) throws(TocsinError) -> ObserverID {
        try addObserver(Observer(id: 0, callback: callback, context: context, box: nil))
    }

    /// Saves the timers, stamped with the realtime clock and this boot.
    package func save(to path: String) throws(TocsinError) {
        try save(to: path, realtime: Clocks.realtime(), boot: .current())
    }

    /// Loads timers, the time away measured against the clocks now.
    package func load(from path: String) throws(TocsinError) -> [TimerID] {
        try load(from: path, realtime: Clocks.realtime(), boot: .current())
    }

    /// The timers as the timer file's JSON, stamped with the clocks now
    /// (for a host that keeps them inside a file of its own).
    package func savedDocument(of chosen: [TimerID]? = nil) throws(TocsinError) -> JSON {
        let timers = try withOpenCore { core throws(TocsinError) in
            try core.savedTimers(only: chosen.map { timers throws(TocsinError) in
                try timers.map { timer throws(TocsinError) in try core.slotIndex(of: timer) }
            })
        }
        return TimerFile.document(timers, header: TimerFile.Header(realtime: Clocks.realtime(), boot: .current()))
    }

    /// Loads timers from the timer file's JSON (see `savedDocument`).
    package func load(document: JSON) throws(TocsinError) -> [TimerID] {
        let (header, saved) = try TimerFile.decode(document: document)
        let away = TimerFile.timeAway(since: header, realtime: Clocks.realtime(), boot: .current())
        return try withLock { core throws(TocsinError) in try core.restore(saved, away: away) }
    }

    /// Saves the timers with the clocks given (tests).
    package func save(to path: String, realtime: Int64, boot: BootStamp?) throws(TocsinError) {
        let timers = try withOpenCore { core in core.savedTimers() }
        let header = TimerFile.Header(realtime: realtime, boot: boot)
        try TimerFile.writeAtomically(TimerFile.encode(timers, header: header), to: path)
    }

    /// Loads timers, the time away measured against the clocks given (tests).
    package func load(from path: String, realtime: Int64, boot: BootStamp?) throws(TocsinError) -> [TimerID] {
        let (header, saved) = try TimerFile.decode(try TimerFile.read(path))
        let away = TimerFile.timeAway(since: header, realtime: realtime, boot: boot)
        return try withLock { core throws(TocsinError) in try core.restore(saved, away: away) }
    }

    /// Runs `body` with the lock held, unless the engine is closed.
    func withOpenCore<Result>(_ body: (inout EngineCore) throws(TocsinError) -> Result) throws(TocsinError) -> Result {
        try withLock { core throws(TocsinError) in
            guard !core.closed else { throw .closed }
            return try body(&core)
        }
    }
}
