import Tocsin

/// Sequences run by the service: a timer added with `after` waits, idle,
/// for that timer to finish, then starts. The rule when a sequence is cut:
/// cancelling or removing a timer cancels every timer waiting for it,
/// directly or through others (the rest of the sequence), so nothing waits
/// for a finish that can no longer come. A waiting timer holds the service
/// up only while its sequence leads to a timer that runs or is paused.
extension TimerService {
    /// The timers waiting for timer `id`, directly or through others, in id order.
    func waiting(on id: UInt64) -> [UInt64] {
        var found: [UInt64] = []
        var frontier: Set<UInt64> = [id]
        while !frontier.isEmpty {
            let next = entries.values.filter { entry in entry.after.map(frontier.contains) == true && !found.contains(entry.id) }
                .map(\.id)
            found += next
            frontier = Set(next)
        }
        return found.sorted()
    }

    /// True if `entry` waits for a timer, directly or down its sequence, that
    /// runs or is paused: it may yet start.
    func mayStart(_ entry: Entry) -> Bool {
        var seen: Set<UInt64> = [entry.id]
        var next = entry.after
        while let id = next, seen.insert(id).inserted, let before = entries[id] {
            let state = try? engine.state(of: before.timer)
            if state == .running || state == .suspended { return true }
            next = before.after
        }
        return false
    }

    /// Cancels timers that wait and so never ran. The engine cancels only
    /// running or paused timers, and starting them to cancel them would show
    /// them running for an instant (a live notification, a `Changed`): each
    /// is reloaded from its own record marked cancelled instead, which makes
    /// no event. `Changed` is the caller's to send (`announce`).
    func cancelWaiting(_ ids: [UInt64]) throws(ServiceError) {
        for id in ids {
            guard var entry = entries[id] else { continue }
            let handles = try engineCall { () throws(TocsinError) -> [TimerID] in
                let document = try engine.savedDocument(of: [entry.timer])
                guard let cancelled = Self.record(document, inState: .canceled) else { throw .corrupt }
                notifier?.detach(entry.timer, in: engine)
                try engine.free(entry.timer)
                forget(id)
                return try engine.load(document: cancelled)
            }
            entry.timer = handles[0]
            entry.after = nil
            entry.notification = nil
            adopt(entry)
        }
    }

    /// `document`, the engine's record of one timer, in `state` instead.
    static func record(_ document: JSON, inState state: TimerState) -> JSON? {
        guard case .object(var members) = document, let index = members.firstIndex(where: { $0.0 == "timers" }),
              case .array(var timers) = members[index].1, timers.count == 1, case .object(var timer) = timers[0],
              let field = timer.firstIndex(where: { $0.0 == "state" })
        else { return nil }
        timer[field].1 = .string(state.description)
        timers[0] = .object(timer)
        members[index].1 = .array(timers)
        return .object(members)
    }
}
