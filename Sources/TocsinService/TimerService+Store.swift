import Glibc
import Tocsin
import TocsinBase

/// The service's timers in its state file, and back.
extension TimerService {
    /// Writes every timer (the engine's timer file inside the service's).
    /// A write that fails is reported on standard error; the timers live on.
    func save() {
        guard let store else { return }
        guard let engineDocument = try? engine.savedDocument(), let handles = try? engine.timers() else { return }
        let byHandle = Dictionary(uniqueKeysWithValues: entries.values.map { ($0.timer.rawValue, $0) })
        let items: [JSON] = handles.map { handle in
            guard let entry = byHandle[handle.rawValue] else { return .null }
            var members: [(String, JSON)] = [
                ("id", .integer(Int64(entry.id))), ("kind", .string(entry.kind.rawValue)),
                ("alert", .bool(entry.alert)), ("sound", .bool(entry.sound)),
            ]
            if let after = entry.after { members.append(("after", .integer(Int64(after)))) }
            if let finishedAt = entry.finishedAt { members.append(("finished_at_ns", .integer(Int64(finishedAt * 1e9)))) }
            return .object(members)
        }
        let document = JSON.object([
            ("format", .string(ServiceStore.format)), ("version", .integer(ServiceStore.version)),
            ("next_id", .integer(Int64(nextID))), ("timers", .array(items)), ("engine", engineDocument),
        ])
        if !store.write(document) { logLine("cannot write \(store.path)") }
    }

    /// Loads the timers of the state file. A file that cannot be read is set
    /// aside (and said so): the service starts without it rather than not at all.
    func restore(from store: ServiceStore) {
        do throws(TocsinError) {
            guard let document = try store.read() else { return }
            guard case .integer(let next)? = document["next_id"], next > 0,
                  case .array(let items)? = document["timers"], let engineDocument = document["engine"]
            else { throw .corrupt }
            var restored: [Entry] = []
            for item in items {
                guard case .integer(let id)? = item["id"], id > 0, id < next,
                      case .string(let kindName)? = item["kind"], let kind = Kind(rawValue: kindName),
                      case .bool(let alert)? = item["alert"], case .bool(let sound)? = item["sound"]
                else { throw .corrupt }
                var after: UInt64?
                if case .integer(let other)? = item["after"] { after = UInt64(other) }
                var finishedAt: Double?
                if case .integer(let at)? = item["finished_at_ns"] { finishedAt = Double(at) / 1e9 }
                restored.append(Entry(id: UInt64(id), timer: TimerID(rawValue: 0), kind: kind, alert: alert,
                                      sound: sound, after: after, finishedAt: finishedAt))
            }
            guard Set(restored.map(\.id)).count == restored.count else { throw .corrupt }
            let handles = try engine.load(document: engineDocument)
            guard handles.count == restored.count else {
                for handle in handles { try? engine.free(handle) }
                throw .corrupt
            }
            nextID = UInt64(next)
            for (var entry, handle) in zip(restored, handles) {
                entry.timer = handle
                // Finished now but not in the file: it ran out while the service was away.
                entry.heldFinish = entry.finishedAt == nil && (try? engine.state(of: handle)) == .finished
                adopt(entry)
            }
        } catch {
            logLine("\(store.path): \(error); set aside as \(store.path).corrupt")
            store.setAside()
        }
    }
}
