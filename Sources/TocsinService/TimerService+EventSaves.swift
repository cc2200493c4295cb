import CGio
import TocsinBase

/// What happens by itself (a finish, a ring, a chained start, a
/// notification's id) is saved without waiting on the disk for each: its
/// records are written as they come and synced once, together, at the end of
/// the engine's dispatch (`deliverEvents`) or when the loop is next idle, and
/// what the events have to say (`Changed`, a finish's announcement) is said
/// after that sync, in the events' order. 1,000 calendar alarms ringing at
/// 07:00 are one fdatasync, not 1,000 (bench/README.md).
extension TimerService {
    /// Delivers the engine's due events (`deliver`: `engine.dispatch()`, or
    /// an advance of a manual clock in tests), then syncs their records once
    /// and announces the finishes among them.
    @discardableResult
    package func deliverEvents<Result>(_ deliver: () throws -> Result) rethrows -> Result {
        defer { flushEvents() }
        return try deliver()
    }

    /// `save`, for a change that has happened already and cannot be refused:
    /// written now, synced by `flushEvents`. If it cannot be written, it goes
    /// with the next save that can (said once on standard error).
    func saveAfterEvent(_ ids: [UInt64]) {
        do throws(ServiceError) {
            let written = try save(ids, events: true)
            guard store != nil else { return }
            eventsUnsynced = true
            unsyncedEventIDs.formUnion(written)
            flushEventsSoon()
        } catch {
            if unsaved.isEmpty { logLine("\(error.message); kept to write with the next change") }
            unsaved.formUnion(ids)
        }
    }

    /// Records a finish (already counted in its entry) and announces it once
    /// the record is synced.
    func recordThenAnnounce(_ id: UInt64, lateness: Double, late: Bool) {
        // Recorded as due to be announced before anything is: killed from
        // here on, the next start announces it again (at least once). If it
        // cannot be written, it is announced all the same: a ring missed is
        // worse than one repeated after a crash.
        saveAfterEvent([id])
        afterEventsSaved { [unowned self] in announce(id, lateness: lateness, late: late, again: false) }
    }

    /// Says `send` (an event's signal) once the events' records are synced,
    /// after what earlier events said.
    func afterEventsSaved(_ send: @escaping () -> Void) {
        eventSignals.append(send)
        flushEventsSoon()
    }

    /// Syncs the event records written since the last sync (one fdatasync),
    /// then says what the events had to say, in order. A sync that fails
    /// cuts them off the journal; they are written again with the next
    /// change that can be.
    package func flushEvents() {
        eventFlush.cancel()
        if eventsUnsynced, let store {
            eventsUnsynced = false
            do throws(StoreError) {
                try store.syncJournal()
            } catch {
                store.discardUnsynced()
                if unsaved.isEmpty { logLine("cannot save the change: \(error); kept to write with the next change") }
                unsaved.formUnion(unsyncedEventIDs)
            }
            unsyncedEventIDs = []
        }
        let sends = eventSignals
        eventSignals = []
        for send in sends { send() }
    }

    /// Runs `flushEvents` once the loop is idle (without a loop, as in
    /// tests, `deliverEvents` or a call runs it).
    private func flushEventsSoon() {
        eventFlush.schedule()
    }
}
