import TocsinBase

extension TimerEngine {
    /// Writes every timer to `path` (kind, label, duration, tick interval,
    /// state, running time, laps, and the realtime clock, the boot and the
    /// boot clock at the save), so that
    /// `load` can carry them on later, in this process or another. The write
    /// is atomic: a temporary file in the same folder, fsync, rename, fsync of
    /// the folder, so a crash leaves the old file or the new one. Mode 0600.
    ///
    /// - Throws: `.io` if the file cannot be written; `.closed`.
    public func save(to path: String) throws(TocsinError) {
        try core.save(to: path)
    }

    /// `save`, with the clocks' readings given (for tests; no boot: a file
    /// as if from another boot).
    package func save(to path: String, realtime: Int64, boot: BootStamp? = nil) throws(TocsinError) {
        try core.save(to: path, realtime: realtime, boot: boot)
    }

    /// Adds the timers saved in `path` to the engine (existing timers stay),
    /// under new handles, and returns them in the file's order.
    ///
    /// Time that passed since the save counts for timers that were running:
    /// on the boot clock if the file was saved in this boot of the machine
    /// (so no change of the wall clock, either way, moves a restored timer),
    /// else on the realtime clock (if it went backwards, as none: nothing
    /// finishes early, no time goes negative). A suspended timer keeps
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
        try core.load(from: path)
    }

    /// `load`, with the clocks' readings given (for tests).
    package func load(from path: String, realtime: Int64, boot: BootStamp? = nil) throws(TocsinError) -> [TimerID] {
        try core.load(from: path, realtime: realtime, boot: boot)
    }

    /// The timers (all, or those `chosen`, in that order) as the timer
    /// file's JSON, for a host that keeps them in a file of its own, as the
    /// timer service does.
    package func savedDocument(of chosen: [TimerID]? = nil) throws(TocsinError) -> JSON {
        try core.savedDocument(of: chosen)
    }

    /// `load`, from the timer file's JSON.
    package func load(document: JSON) throws(TocsinError) -> [TimerID] {
        try core.load(document: document)
    }
}
