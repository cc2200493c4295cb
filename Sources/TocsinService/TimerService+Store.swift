import Glibc
import Tocsin
import TocsinBase
import TocsinNotify

/// The service's timers in its state files (see `ServiceStore`), and back.
extension TimerService {
    /// Journal lines before the snapshot is rewritten: at least this many,
    /// and at least as many as there are timers, so that rewriting every
    /// timer costs O(1) per change on average.
    static let journalLimit = 256

    /// Makes timers `ids`' records (or their removal) durable before the
    /// caller answers: a journal line each, synced to disk, or now and then
    /// a new snapshot instead. Records whose saving failed before (changes
    /// that came from events) go along.
    /// - Throws: `.failed` with the system's reason when nothing could be
    ///   written; the journal and snapshot are then as they were.
    /// `events`: written without a sync, which `flushEvents` does for all of
    /// them together (see `TimerService+EventSaves`).
    /// - Returns: the timers whose records went into the journal (those
    ///   that waited in `unsaved` too); none when a snapshot was written.
    @discardableResult
    func save(_ ids: [UInt64], events: Bool = false) throws(ServiceError) -> [UInt64] {
        guard let store else { return [] }
        guard !savingStopped else { throw ServiceError(.failed, "cannot save the change: the service is stopping") }
        let all = ids + unsaved.filter { !ids.contains($0) }.sorted()
        guard !all.isEmpty else { return [] }
        if store.damaged || journalLines + all.count > max(Self.journalLimit, entries.count) {
            try snapshot()
            return []
        }
        var lines: [JSON] = []
        for id in all {
            changeNumber += 1
            if let entry = entries[id], let record = record(of: entry) {
                lines.append(.object([("change", .integer(changeNumber))] + record))
            } else {
                lines.append(.object([("change", .integer(changeNumber)), ("removed", .integer(Int64(id)))]))
            }
        }
        do throws(StoreError) {
            try store.append(lines, sync: !grouping && !events)
        } catch {
            throw ServiceError(.failed, "cannot save the change: \(error)")
        }
        journalLines += lines.count
        noteSaved(all)
        return all
    }

    /// Calls from here to `endGroup` are saved together: each call's lines
    /// are written as it runs (a write that fails undoes that call alone),
    /// and synced once at the end, before any of them is answered.
    package func beginGroup() {
        grouping = true
    }

    /// Syncs what the group's calls wrote. If that fails, a snapshot is
    /// tried in its place; if that fails too, the group's lines are cut off,
    /// nothing more is saved (`savingStopped`) and the reason returned: the
    /// calls must be answered with it and the service must stop, since its
    /// timers in memory hold changes that are not on disk (a restart reads
    /// the files, which hold every change answered before).
    package func endGroup() -> ServiceError? {
        grouping = false
        guard let store else { return nil }
        do throws(StoreError) {
            try store.syncJournal()
            return nil
        } catch {
            do throws(ServiceError) {
                try snapshot()
                return nil
            } catch let failure {
                store.discardUnsynced()
                savingStopped = true
                return ServiceError(.failed, "cannot save the change: \(error) (\(failure.message))")
            }
        }
    }

    /// Writes every timer to a new snapshot and empties the journal.
    /// - Throws: `.failed` with the system's reason; the files are then as
    ///   they were.
    func snapshot() throws(ServiceError) {
        guard let store, !savingStopped else { return }
        let records: [JSON] = entries.values.sorted { $0.id < $1.id }.compactMap { record(of: $0).map(JSON.object) }
        var members: [(String, JSON)] = [
            ("format", .string(ServiceStore.format)), ("version", .integer(ServiceStore.version)),
            ("change", .integer(changeNumber)), ("next_id", .integer(Int64(nextID))), ("timers", .array(records)),
        ]
        if let summaryNotification { members.append(("summary_notification", .integer(Int64(summaryNotification)))) }
        let document = JSON.object(members)
        do throws(StoreError) {
            try store.write(document)
        } catch {
            throw ServiceError(.failed, "cannot save the change: \(error)")
        }
        store.clearJournal()
        journalLines = 0
        noteSaved(Array(entries.keys) + Array(unsaved))
    }

    /// One timer as the files keep it: the service's fields and the engine's
    /// timer file holding just this timer (with its own clocks' stamps).
    private func record(of entry: Entry) -> [(String, JSON)]? {
        if let held = entry.heldRecord { return held }
        guard let engineDocument = try? engine.savedDocument(of: [entry.timer]) else { return nil }
        var members: [(String, JSON)] = [("id", .integer(Int64(entry.id))), ("kind", .string(entry.kind.rawValue))]
        members += entry.settings.journalMembers + entry.ownJournalMembers
        members.append(("engine", engineDocument))
        return members
    }

    private func noteSaved(_ ids: [UInt64]) {
        unsaved.subtract(ids)
        for id in ids {
            if let entry = entries[id], let state = try? engine.state(of: entry.timer) {
                savedStates[id] = state
            } else {
                savedStates[id] = nil
            }
        }
    }

    /// Loads the snapshot and the journal's later changes, then writes a
    /// new snapshot. Files that cannot be read are set aside (and said so):
    /// the service starts without them rather than not at all.
    func restore(from store: ServiceStore) {
        var found = false
        do throws(TocsinError) {
            var records: [UInt64: JSON] = [:]
            var next: Int64 = 1
            var lastChange: Int64 = 0
            var summary: UInt32?
            if let document = try store.read() {
                found = true
                if case .integer(let id)? = document["summary_notification"] { summary = UInt32(exactly: id) }
                guard case .integer(let change)? = document["change"], change >= 0,
                      case .integer(let nextInFile)? = document["next_id"], nextInFile > 0,
                      case .array(let items)? = document["timers"]
                else { throw .corrupt }
                (lastChange, next) = (change, nextInFile)
                for item in items {
                    guard case .integer(let id)? = item["id"], id > 0, records[UInt64(id)] == nil else { throw .corrupt }
                    records[UInt64(id)] = item
                }
            }
            let snapshotChange = lastChange
            for line in try store.readJournal() {
                found = true
                guard case .integer(let change)? = line["change"] else { throw .corrupt }
                guard change > snapshotChange else { continue }  // the snapshot has it
                lastChange = max(lastChange, change)
                // (Out-of-range numbers are damage, never a trap: `exactly`, and no id + 1 past the top.)
                if case .integer(let removed)? = line["removed"] {
                    if let removed = UInt64(exactly: removed) { records[removed] = nil }
                } else if case .integer(let id)? = line["id"], id > 0, id < Int64.max {
                    records[UInt64(id)] = line
                    next = max(next, id + 1)
                } else {
                    throw .corrupt
                }
            }
            var restored: [Entry] = []
            do throws(TocsinError) {
                for (id, item) in records.sorted(by: { $0.key < $1.key }) {
                    guard case .string(let kindName)? = item["kind"], let kind = Kind(rawValue: kindName),
                          let engineDocument = item["engine"]
                    else { throw .corrupt }
                    let settings = try AlarmSettings(journal: item)
                    let handles = try engine.load(document: engineDocument)
                    guard handles.count == 1 else {
                        for handle in handles { try? engine.free(handle) }
                        throw .corrupt
                    }
                    var entry = Entry(id: id, timer: handles[0], kind: kind, settings: settings, after: nil, finishedAt: nil)
                    entry.readOwnJournalMembers(from: item)
                    // It ran out (a calendar alarm: rang) while the service was away.
                    if (try? engine.hasHeldFinish(handles[0])) == true, case .object(let members) = item {
                        entry.heldRecord = members.filter { $0.0 != "change" }
                    }
                    restored.append(entry)
                }
            } catch {
                for entry in restored { try? engine.free(entry.timer) }
                throw error
            }
            nextID = UInt64(next)
            changeNumber = lastChange
            // Nothing live shows until all are back: with only some, the
            // old summary would be closed and a new one shown beside it.
            notifier?.beginRestore()
            for entry in restored {
                adopt(entry)
                if entry.snoozedUntil != nil { armSnooze(of: entry.id) }
            }
            summaryNotification = summary
            notifier?.endRestore(summary: summary)
        } catch {
            logLine("\(store.path): \(error); set aside as \(store.path).corrupt")
            store.setAside()
        }
        if found {  // the journal folded in (if that fails, it is read again next time)
            do throws(ServiceError) { try snapshot() } catch { logLine(error.message) }
        }
    }
}
