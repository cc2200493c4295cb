import Tocsin
import TocsinBase

/// The calls of the D-Bus API (docs/dbus.md), each saved before it is
/// answered (see `change` for the undo when it cannot be).
extension TimerService {
    /// Creates a timer and, unless `start` is false or it waits for another
    /// (`after`), starts it. Returns its id.
    /// `caller`: who asks (a sandboxed app owns the timer, and may wait
    /// only for its own).
    package func add(label: String, seconds: Double, options: [String: ServiceValue],
                     caller: Caller) throws(ServiceError) -> UInt64 {
        let request = try AddRequest(label: label, seconds: seconds, options: options) { other in
            entries[other].map { caller.owns($0.owner) } ?? false
        }
        // Before anything is made: a sandboxed app's timer runs nothing on the host.
        if request.command != nil, let app = caller.app {
            throw ServiceError(.notPermitted, "\(app) is sandboxed: only the user's own programs may have the service run a command (exec)")
        }
        guard entries.count < limits.timers else {
            throw ServiceError(.limitReached, "the service keeps at most \(limits.timers) timers, finished ones included "
                + "until removed: remove some (tocsin rm --finished), or raise tocsin service --max-timers")
        }
        if let app = caller.app, entries.values.count(where: { $0.owner == app }) >= limits.perApp {
            throw ServiceError(.limitReached, "\(app) keeps at most \(limits.perApp) timers, finished ones included until "
                + "removed: remove some, or ask the user to (tocsin rm --owner \(app))")
        }
        // Ids are never reused; the files hold them as Int64 (a damaged
        // snapshot's next_id could bring this near).
        guard nextID < UInt64(Int64.max) else {
            throw ServiceError(.limitReached, "the service has given out every timer id (the last was \(nextID - 1))")
        }
        let timer = try engineCall { () throws(TocsinError) -> TimerID in
            switch request.kind {
            case .countdown: try engine.countdown(nanoseconds: request.nanoseconds)
            case .stopwatch: try engine.stopwatch()
            case .alarm: try engine.alarm(atNanoseconds: request.nanoseconds)
            case .calendar: try engine.calendar(request.calendar ?? CalendarSpec())
            }
        }
        let id = nextID
        nextID += 1
        var entry = Entry(id: id, timer: timer, kind: request.kind, settings: request.settings, after: request.after)
        entry.owner = caller.app
        entry.command = request.command
        do throws(TocsinError) {
            try engine.setLabel(label, for: timer)
            if request.clock == .awake { try engine.setClock(.awake, for: timer) }
            if request.wake { try engine.setWake(true, for: timer) }
            if let until = request.skipUntil {
                guard let nanoseconds = Nanos.from(seconds: until) else { throw .invalidArgument }
                try engine.skipRings(timer, until: .nanoseconds(nanoseconds))
            }
            adopt(entry)
            if request.start && request.after == nil {
                try engine.start(timer)
                noteScripts(.start, of: id)
            }
        } catch {
            drop(id, timer)
            throw ServiceError(error)
        }
        do throws(ServiceError) {
            try save([id])
        } catch {
            drop(id, timer)
            throw error
        }
        return id
    }

    package func pause(_ id: UInt64) throws(ServiceError) {
        try change(id, .pause) { engine, timer throws(TocsinError) in try engine.suspend(timer) }
    }

    package func resume(_ id: UInt64) throws(ServiceError) {
        try change(id, .resume) { engine, timer throws(TocsinError) in try engine.resume(timer) }
    }

    /// Cancels the timer, and the rest of its sequence: every timer waiting
    /// for it, directly or through others, is cancelled too.
    package func cancel(_ id: UInt64) throws(ServiceError) {
        let snoozed = entries[id]?.snoozedUntil
        entries[id]?.snoozedUntil = nil  // a cancelled calendar alarm rings no more
        do throws(ServiceError) {
            try change(id, .cancel, cancelling: waiting(on: id)) { engine, timer throws(TocsinError) in try engine.cancel(timer) }
        } catch {
            entries[id]?.snoozedUntil = snoozed
            if snoozed != nil { armSnooze(of: id) }  // (putting the timer back ended its ring)
            throw error
        }
        endSnooze(of: id)
        if let entry = entries[id] { recordHistory(cancelEvent(of: entry), of: id) }
    }

    /// Starts the timer again from its full duration, whatever its state.
    package func restart(_ id: UInt64) throws(ServiceError) {
        try change(id, .restart) { engine, timer throws(TocsinError) in
            let state = try engine.state(of: timer)
            if state == .running || state == .suspended { try engine.cancel(timer) }
            try engine.start(timer)
        }
        entries[id]?.startedAt = nil  // a new run: its STATE event starts it
        entries[id]?.historyElapsed = 0
    }

    package func adjust(_ id: UInt64, by seconds: Double) throws(ServiceError) {
        try adjust(id, by: seconds, as: .adjust(seconds))
    }

    /// `adjust`, made as `call` (a snooze is one, and runs its hook).
    func adjust(_ id: UInt64, by seconds: Double, as call: Call) throws(ServiceError) {
        let before = entries[id].flatMap { try? engine.state(of: $0.timer) }
        try change(id, call) { engine, timer throws(TocsinError) in
            guard let delta = Nanos.from(signedSeconds: seconds) else { throw .invalidArgument }
            try engine.adjust(timer, byNanoseconds: delta)
        }
        // A running or paused timer sends no state event for an adjust: say it here.
        guard let entry = entries[id] else { return }
        notifier?.refresh(entry.timer, in: engine)
        if before == (try? engine.state(of: entry.timer)), let properties = properties(of: entry) {
            signals.changed(id, properties)
        }
    }

    /// Records a lap; returns its length in seconds.
    package func lap(_ id: UInt64) throws(ServiceError) -> Double {
        var length = 0.0
        try change(id, .lap) { engine, timer throws(TocsinError) in
            length = Nanos.seconds(try engine.lapNanoseconds(timer))
        }
        if let entry = entries[id], let properties = properties(of: entry) { signals.changed(id, properties) }
        return length
    }

    /// Frees the timer once its removal is saved; `Removed` follows. The
    /// rest of its sequence is cancelled, as by `cancel`.
    package func remove(_ id: UInt64) throws(ServiceError) {
        let entry = try lookUp(id)
        let rest = waiting(on: id)
        let before = records(of: rest)
        let underWay = isUnderWay(id)  // removed while it runs or is paused: its run ends, a line says so
        do throws(ServiceError) {
            try cancelWaiting(rest)
            forget(id)
            try save([id] + rest)
        } catch {
            adoptAgain(entry)
            putBack(before)
            throw error
        }
        if underWay { recordHistory(cancelEvent(of: entry), of: entry) }  // (before the engine lets go of it)
        launchRuns(ofRemoved: entry)  // (due for what it did before: they run, once)
        notifier?.detach(entry.timer, in: engine)
        try? engine.free(entry.timer)
        signals.removed(id, entry.owner)
        announce(rest)
    }
}
