import Glibc

/// One timer as the file keeps it.
struct SavedTimer: Equatable {
    var stopwatch: Bool
    var label: String
    var duration: Int64
    var tick: Int64
    var state: TimerState
    var elapsed: Int64
    var laps: [Int64]
}

extension TimerEngine {
    /// The file format's name and version (`"format"`, `"version"`).
    static let fileFormat = "tocsin-timers"
    static let fileVersion: Int64 = 1
    /// Larger files are not read: they are not timer files.
    static let maxFileBytes = 64 << 20

    /// Every timer of the engine, in creation order.
    ///
    /// - Complexity: O(n log n).
    public func timers() throws(TocsinError) -> [TimerID] {
        lock.lock()
        defer { lock.unlock() }
        guard !closed else { throw .closed }
        return liveIndicesInCreationOrder().map { TimerID(rawValue: slots.handle(of: $0)) }
    }

    /// Live slots by creation number, counting back from the newest, so the
    /// order holds across the counter's wrap. Lock held.
    private func liveIndicesInCreationOrder() -> [Int32] {
        var indices: [Int32] = []
        slots.forEachLive { indices.append($0) }
        let newest = nextCreated
        return indices.sorted { (newest &- slots[$0].pointee.created) > (newest &- slots[$1].pointee.created) }
    }

    /// Writes every timer to `path` (kind, label, duration, tick interval,
    /// state, running time, laps, and the realtime clock at the save), so that
    /// `load` can carry them on later, in this process or another. The write
    /// is atomic: a temporary file in the same folder, fsync, rename, fsync of
    /// the folder, so a crash leaves the old file or the new one. Mode 0600.
    ///
    /// - Throws: `.io` if the file cannot be written; `.closed`.
    public func save(to path: String) throws(TocsinError) {
        try save(to: path, realtime: Self.realtimeNow())
    }

    /// `save`, with the realtime clock's reading given (for tests).
    package func save(to path: String, realtime: Int64) throws(TocsinError) {
        let text = try snapshot(realtime: realtime).encoded() + "\n"
        try Self.writeAtomically(Array(text.utf8), to: path)
    }

    /// The file's contents now.
    func snapshot(realtime: Int64) throws(TocsinError) -> JSON {
        lock.lock()
        defer { lock.unlock() }
        guard !closed else { throw .closed }
        let now = clockNow()
        let timers: [JSON] = liveIndicesInCreationOrder().map { index in
            let slot = slots[index].pointee
            let saved = SavedTimer(
                stopwatch: slot.isStopwatch, label: labels[index] ?? "", duration: slot.duration,
                tick: ticks[index]?.interval ?? 0, state: slot.state, elapsed: slot.runningTime(at: now),
                laps: laps[index]?.lengths ?? [])
            return saved.json
        }
        return .object([
            ("format", .string(Self.fileFormat)), ("version", .integer(Self.fileVersion)),
            ("saved_realtime_ns", .integer(realtime)), ("timers", .array(timers)),
        ])
    }

    /// Adds the timers saved in `path` to the engine (existing timers stay),
    /// under new handles, and returns them in the file's order.
    ///
    /// Time that passed on the realtime clock since the save counts for timers
    /// that were running (if that clock went backwards, it counts as none:
    /// nothing finishes early, no time goes negative). A suspended timer keeps
    /// its time exactly; ticks missed while away are not replayed. A countdown
    /// that ran out while away is restored finished, and its FINISH (then
    /// STATE(FINISHED)) is delivered once a handler is set on it, with
    /// `lateness` = how long ago it ran out. No STATE events are made for
    /// the restored states themselves.
    ///
    /// - Throws: `.io` for a missing or unreadable file, `.corrupt` for
    ///   anything that is not a valid timer file of a known version;
    ///   `.outOfMemory`; `.closed`. On any failure the engine is unchanged.
    public func load(from path: String) throws(TocsinError) -> [TimerID] {
        try load(from: path, realtime: Self.realtimeNow())
    }

    /// `load`, with the realtime clock's reading given (for tests).
    package func load(from path: String, realtime: Int64) throws(TocsinError) -> [TimerID] {
        let (savedAt, saved) = try Self.decode(try Self.readFile(path))
        let away = max(0, realtime - savedAt)
        lock.lock()
        defer { lock.unlock() }
        guard !closed else { throw .closed }
        var restored: [Int32] = []
        do throws(TocsinError) {
            for timer in saved {
                guard let index = slots.allocate() else { throw .outOfMemory }
                restored.append(index)
                try restore(timer, into: index, away: away)
            }
        } catch {
            for index in restored {  // all or nothing
                disarm(index)
                clearSideTables(index)
                slots.release(index)
            }
            throw error
        }
        return restored.map { TimerID(rawValue: slots.handle(of: $0)) }
    }

    /// Fills a fresh slot from a saved timer. Lock held.
    private func restore(_ saved: SavedTimer, into index: Int32, away: Int64) throws(TocsinError) {
        let now = clockNow()
        let slot = slots[index]
        slot.pointee.duration = saved.stopwatch ? 0 : saved.duration
        slot.pointee.created = nextCreated
        nextCreated &+= 1
        if !saved.label.isEmpty {
            labels[index] = saved.label
            slot.pointee.flags.insert(.extras)
        }
        if !saved.laps.isEmpty {
            laps[index] = LapRecord(mark: saved.laps.reduce(0, +), lengths: saved.laps)
            slot.pointee.flags.insert(.extras)
        }
        var running = saved.elapsed
        var state = saved.state
        if state == .running {
            running = running.addingSaturated(away)
            if !saved.stopwatch && running >= saved.duration {  // ran out while away
                state = .finished
                heldFinishes[index] = now - (running - saved.duration)
                slot.pointee.flags.insert(.extras)
                running = saved.duration
            }
        }
        if saved.tick > 0 {
            var schedule = TickSchedule(interval: saved.tick)
            schedule.resume(after: state == .idle ? 0 : running)
            ticks[index] = schedule
            slot.pointee.flags.insert(.ticking)
        }
        slot.pointee.state = state
        slot.pointee.anchor = running
        if state == .running {
            slot.pointee.run(at: now)
            try arm(index)
        }
    }

    /// Queues a restored timer's held FINISH once its handler wants it.
    /// Lock held.
    @inline(__always)
    func releaseHeldFinish(_ index: Int32) {
        if slots[index].pointee.flags.contains(.extras) { releaseHeldFinishIfWanted(index) }
    }

    private func releaseHeldFinishIfWanted(_ index: Int32) {
        let slot = slots[index]
        // Out of memory for the queue, the FINISH stays held for the next
        // handler change rather than being lost.
        guard slot.pointee.wants(.finish), pending.makeRoom(for: 2),
              let due = heldFinishes.removeValue(forKey: index) else { return }
        let duration = slot.pointee.duration
        pending.append(PendingEvent(of: index, in: slots, state: .finished, time: due, elapsed: duration, isFinish: true))
        pending.append(PendingEvent(of: index, in: slots, state: .finished, time: due, elapsed: duration))
        signalQueuedEvents(since: due)
    }

    // MARK: - The file

    static func realtimeNow() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Int64(time.tv_sec) * Nanos.perSecond + Int64(time.tv_nsec)
    }

    static func readFile(_ path: String) throws(TocsinError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .io }
        defer { Glibc.close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw .io }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw .io }
        guard info.st_size <= maxFileBytes else { throw .corrupt }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + offset, $0.count - offset) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { throw count == 0 ? .corrupt : .io }  // shrank while read
            offset += count
        }
        return bytes
    }

    static func writeAtomically(_ bytes: [UInt8], to path: String) throws(TocsinError) {
        var template = Array((path + ".XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw .io }
        let temporary = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var ok = fchmod(fd, 0o600) == 0
        var offset = 0
        while ok && offset < bytes.count {
            let count = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if count < 0 && errno == EINTR { continue }
            ok = count > 0
            offset += max(0, count)
        }
        ok = ok && fsync(fd) == 0
        ok = Glibc.close(fd) == 0 && ok
        guard ok, rename(temporary, path) == 0 else {
            unlink(temporary)
            throw .io
        }
        let folder = path.contains("/") ? String(path[..<path.lastIndex(of: "/")!]) : "."
        let dirfd = open(folder.isEmpty ? "/" : folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dirfd >= 0 {
            fsync(dirfd)  // the rename itself reaches the disk
            Glibc.close(dirfd)
        }
    }

    /// The saved realtime and timers, or `.corrupt` for anything else.
    static func decode(_ bytes: [UInt8]) throws(TocsinError) -> (Int64, [SavedTimer]) {
        guard let document = JSON.parse(bytes),
              case .string(fileFormat)? = document["format"],
              case .integer(let version)? = document["version"], version == fileVersion,
              case .integer(let savedAt)? = document["saved_realtime_ns"], savedAt >= 0,
              case .array(let items)? = document["timers"], items.count <= Int(SlotTable.maxSlots)
        else { throw .corrupt }
        var timers: [SavedTimer] = []
        for item in items {
            guard let timer = SavedTimer(item) else { throw .corrupt }
            timers.append(timer)
        }
        return (savedAt, timers)
    }
}

extension SavedTimer {
    var json: JSON {
        .object([
            ("kind", .string(stopwatch ? "stopwatch" : "countdown")), ("label", .string(label)),
            ("duration_ns", .integer(duration)), ("tick_ns", .integer(tick)),
            ("state", .string(state.description)), ("elapsed_ns", .integer(elapsed)),
            ("laps_ns", .array(laps.map(JSON.integer))),
        ])
    }

    /// A saved timer, or nil if anything in it is out of range or inconsistent.
    init?(_ json: JSON) {
        guard case .string(let kind)? = json["kind"], kind == "countdown" || kind == "stopwatch",
              case .string(let label)? = json["label"], label.utf8.count <= TimerEngine.maxLabelBytes,
              case .integer(let duration)? = json["duration_ns"],
              case .integer(let tick)? = json["tick_ns"], (0...Nanos.max).contains(tick),
              case .string(let stateName)? = json["state"],
              let state = TimerState.allCases.first(where: { $0.description == stateName }),
              case .integer(let elapsed)? = json["elapsed_ns"], elapsed >= 0,
              case .array(let lapItems)? = json["laps_ns"], lapItems.count <= 1_000_000
        else { return nil }
        let stopwatch = kind == "stopwatch"
        var laps: [Int64] = []
        var lapTotal: Int64 = 0
        for item in lapItems {
            guard case .integer(let lap) = item, lap >= 0 else { return nil }
            let (sum, overflow) = lapTotal.addingReportingOverflow(lap)
            guard !overflow else { return nil }
            lapTotal = sum
            laps.append(lap)
        }
        guard lapTotal <= elapsed else { return nil }
        if stopwatch {
            guard duration == 0, state != .finished, elapsed <= Int64.max / 2 else { return nil }
        } else {
            guard (1...Nanos.max).contains(duration), elapsed <= duration else { return nil }
            if state == .finished && elapsed != duration { return nil }
        }
        if state == .idle && (elapsed != 0 || !laps.isEmpty) { return nil }
        self.init(stopwatch: stopwatch, label: label, duration: duration, tick: tick, state: state,
                  elapsed: elapsed, laps: laps)
    }
}
