import Tocsin

/// Changes that are saved before they are answered, and undone when they
/// cannot be: a timer is put back by freeing it and loading its engine
/// record taken before the change (the engine has no undo of its own; the
/// record holds the timer exactly, on its own clocks' stamps).
extension TimerService {
    /// Runs `call` (an engine call, `body`) on timer `id` and cancels the timers `waiting`
    /// for it, then saves them all. If the call fails nothing has changed;
    /// if the rest or the save fails, every one of them is put back exactly
    /// as it was (no event of the change is delivered) and the failure thrown.
    func change(_ id: UInt64, _ call: Call, cancelling waiting: [UInt64] = [],
                _ body: (TimerEngine, TimerID) throws(TocsinError) -> Void) throws(ServiceError) {
        let entry = try lookUp(id)
        let before = store == nil && waiting.isEmpty ? [] : records(of: [id] + waiting)
        do throws(TocsinError) {
            try body(engine, entry.timer)
        } catch {
            throw explain(error, of: call, on: entry)
        }
        if let event = Self.scriptEvent(of: call) { noteScripts(event, of: id) }  // (saved with it; put back with it)
        do throws(ServiceError) {
            try cancelWaiting(waiting)
            try save([id] + waiting)
        } catch {
            putBack(before)
            throw error
        }
        announce(waiting)
    }

    /// Each timer as it is now: its entry and its engine record.
    func records(of ids: [UInt64]) -> [(Entry, JSON)] {
        ids.compactMap { id in
            entries[id].flatMap { entry in (try? engine.savedDocument(of: [entry.timer])).map { (entry, $0) } }
        }
    }

    /// The timers as `records` took them, under new handles, with their
    /// handlers and notifications again.
    func putBack(_ records: [(Entry, JSON)]) {
        for (entry, document) in records {
            let current = entries[entry.id]?.timer ?? entry.timer
            notifier?.detach(current, in: engine)
            try? engine.free(current)
            forget(entry.id)
            guard let handles = try? engine.load(document: document), handles.count == 1 else {
                logLine("timer \(entry.id) could not be put back as it was")  // (a record just made always loads)
                continue
            }
            var restored = entry
            restored.timer = handles[0]
            // A new notification: the detach above closed the old one, and its
            // closing, adopted, would read as the person dismissing the new one.
            restored.notification = nil
            adopt(restored)
            if restored.snoozedUntil != nil { armSnooze(of: restored.id) }  // `forget` ended its ring
        }
    }

    /// Tells the clients what became of `ids` (a change made without state
    /// events of its own).
    func announce(_ ids: [UInt64]) {
        for id in ids {
            if let entry = entries[id], let properties = properties(of: entry) { signals.changed(id, properties) }
        }
    }
}
