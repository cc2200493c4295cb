import CGio
import Glibc
package import Tocsin
import TocsinBase
package import TocsinNotify

/// What the service tells its clients; the bus turns these into signals.
package struct ServiceSignals {
    package var changed: (UInt64, [(String, ServiceValue)]) -> Void = { _, _ in }
    package var finished: (UInt64, String, Double) -> Void = { _, _, _ in }
    package var removed: (UInt64) -> Void = { _ in }

    package init() {}
}

/// The timer service's rules, without the bus: one engine, the notifier,
/// stable ids, and the state file written before any call is answered and
/// after every change, so that nothing acknowledged is lost.
///
/// `@unchecked Sendable`: used on one thread (the service's main loop); the
/// engine is polled there, so its handlers run there too.
package final class TimerService: @unchecked Sendable {
    package enum Kind: String, Sendable {
        case countdown, stopwatch, alarm
    }

    /// A timer as the service knows it besides the engine.
    struct Entry {
        let id: UInt64
        var timer: TimerID
        let kind: Kind
        var alert: Bool
        var sound: Bool
        /// A live notification while it runs or is paused.
        var live: Bool
        /// Nanoseconds before zero to warn (0: no warning).
        var warn: Int64
        /// Its notification's id on the server: after a restart the new
        /// notification replaces the one the killed service left showing.
        var notification: UInt32? = nil
        /// Start when that timer finishes (a sequence run by the service).
        var after: UInt64?
        /// Wall-clock time (Unix seconds) it finished at, once it has.
        var finishedAt: Double?
        /// Set for a timer restored as having run out while the service was
        /// away, until its FINISH (then its alert, by how long ago) arrives:
        /// the record it was restored from (still running there), which the
        /// files keep meanwhile, so that a crash before the FINISH is
        /// announced leaves it to be announced next time.
        var heldRecord: [(String, JSON)]?
    }

    package let engine: TimerEngine
    let store: ServiceStore?
    let notifier: Notifier?
    package var signals = ServiceSignals()
    /// A finish announced more than this long after it happened gets a
    /// quiet alert ("Tea ran out 3 h ago") instead of the alarm.
    package var grace: Double = 3600
    var entries: [UInt64: Entry] = [:]
    /// Each timer's state as last written to the state file.
    var savedStates: [UInt64: TimerState] = [:]
    private var idsByHandle: [UInt64: UInt64] = [:]
    var nextID: UInt64 = 1
    /// The number of the last change written (see `ServiceStore`).
    var changeNumber: Int64 = 0
    /// Lines in the journal since the last snapshot.
    var journalLines = 0
    /// Timers changed by events whose records could not be written yet.
    var unsaved: Set<UInt64> = []

    /// Loads the timers of `store` (if any) into `engine`.
    package init(engine: TimerEngine, store: ServiceStore?, notifier: Notifier?) {
        self.engine = engine
        self.store = store
        self.notifier = notifier
        notifier?.setReportHandler { [unowned self] report in
            guard report.kind == .shown, let timer = report.timer, let notification = report.notification else { return }
            Self.onMainLoop { [unowned self] in noteNotification(notification, of: timer) }
        }
        if let store { restore(from: store) }
    }

    /// Keeps the id of the notification showing for `timer` (saved when new).
    private func noteNotification(_ notification: UInt32, of timer: TimerID) {
        guard let id = idsByHandle[timer.rawValue], entries[id]?.notification != notification else { return }
        entries[id]?.notification = notification
        saveAfterEvent([id])
    }

    // MARK: - Calls

    /// Creates a timer and, unless `start` is false or it waits for another
    /// (`after`), starts it. Returns its id.
    package func add(label: String, seconds: Double, options: [String: ServiceValue]) throws(ServiceError) -> UInt64 {
        let known: Set<String> = ["kind", "start", "tick", "alert", "sound", "live", "warn", "clock", "after"]
        if let unknown = options.keys.sorted().first(where: { !known.contains($0) }) {
            throw ServiceError(.invalidArgument, "unknown option '\(unknown)' (known: \(known.sorted().joined(separator: ", ")))")
        }
        let kindName = try text(options["kind"], "kind") ?? "countdown"
        guard let kind = Kind(rawValue: kindName) else {
            throw ServiceError(.invalidArgument, "kind must be countdown, stopwatch or alarm, not '\(kindName)'")
        }
        let start = try flag(options["start"], "start") ?? true
        let alert = try flag(options["alert"], "alert") ?? true
        let sound = try flag(options["sound"], "sound") ?? true
        let live = try flag(options["live"], "live") ?? true
        let warnSeconds = try number(options["warn"], "warn") ?? 0
        guard warnSeconds <= 86400, let warn = Nanos.from(seconds: warnSeconds) else {
            throw ServiceError(.invalidArgument, "warn must be at most 86400 seconds")
        }
        let tick = try number(options["tick"], "tick")
        let clockName = try text(options["clock"], "clock") ?? "boot"
        guard let clock = ["boot": TimerClock.boot, "awake": .awake][clockName] else {
            throw ServiceError(.invalidArgument, "clock must be boot or awake, not '\(clockName)'")
        }
        var after: UInt64?
        if case .id(let other)? = options["after"] {
            guard entries[other] != nil else { throw ServiceError(.noSuchTimer, "no timer \(other) to start after") }
            after = other
        } else if options["after"] != nil {
            throw ServiceError(.invalidArgument, "after must be a timer id (t)")
        }
        guard label.utf8.count <= TimerEngine.maxLabelBytes else {
            throw ServiceError(.invalidArgument, "the label is longer than \(TimerEngine.maxLabelBytes) bytes")
        }
        let nanoseconds = Nanos.from(seconds: seconds)  // a countdown's length, an alarm's Unix time
        if kind == .countdown, (nanoseconds ?? 0) <= 0 {
            throw ServiceError(.invalidArgument, "seconds must be a finite number above 0, at most 100 years; got \(seconds)")
        }
        if kind == .alarm, nanoseconds == nil {
            throw ServiceError(.invalidArgument, "an alarm's time must be a Unix time (seconds since 1970), got \(seconds)")
        }
        let timer = try engineCall { () throws(TocsinError) -> TimerID in
            switch kind {
            case .countdown: try engine.countdown(nanoseconds: nanoseconds ?? 0)
            case .stopwatch: try engine.stopwatch()
            case .alarm: try engine.alarm(atNanoseconds: nanoseconds ?? 0)
            }
        }
        let id = nextID
        nextID += 1
        let entry = Entry(id: id, timer: timer, kind: kind, alert: alert, sound: sound, live: live, warn: warn, after: after)
        do throws(TocsinError) {
            try engine.setLabel(label, for: timer)
            if let tick {
                guard let interval = Nanos.from(seconds: tick) else { throw .invalidArgument }
                try engine.setTickInterval(nanoseconds: interval, for: timer)
            }
            if clock == .awake { try engine.setClock(.awake, for: timer) }
            adopt(entry)
            if start && after == nil { try engine.start(timer) }
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
        try change(id, .cancel, cancelling: waiting(on: id)) { engine, timer throws(TocsinError) in try engine.cancel(timer) }
    }

    /// Starts the timer again from its full duration, whatever its state.
    package func restart(_ id: UInt64) throws(ServiceError) {
        try change(id, .restart) { engine, timer throws(TocsinError) in
            let state = try engine.state(of: timer)
            if state == .running || state == .suspended { try engine.cancel(timer) }
            try engine.start(timer)
        }
    }

    package func adjust(_ id: UInt64, by seconds: Double) throws(ServiceError) {
        let before = entries[id].flatMap { try? engine.state(of: $0.timer) }
        try change(id, .adjust(seconds)) { engine, timer throws(TocsinError) in
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
        do throws(ServiceError) {
            try cancelWaiting(rest)
            forget(id)
            try save([id] + rest)
        } catch {
            adoptAgain(entry)
            putBack(before)
            throw error
        }
        notifier?.detach(entry.timer, in: engine)
        try? engine.free(entry.timer)
        signals.removed(id)
        announce(rest)
    }

    /// Every timer's properties, in creation order.
    package func list() -> [[(String, ServiceValue)]] {
        entries.values.sorted { $0.id < $1.id }.compactMap { properties(of: $0) }
    }

    /// True while no timer runs, is suspended, or waits for one that does:
    /// the service may exit.
    package var isIdle: Bool {
        entries.values.allSatisfy { entry in
            let state = try? engine.state(of: entry.timer)
            return state != .running && state != .suspended && !mayStart(entry)
        }
    }

    // MARK: - Events

    private func handle(_ event: TimerEvent, of id: UInt64) {
        guard var entry = entries[id] else { return }
        switch event.kind {
        case .tick:
            return
        case .stateChange:
            if event.state == .running { entry.finishedAt = nil }
            entries[id] = entry
            // A call saved its own change before answering: save only what
            // came from elsewhere (the alert's buttons, a chained start).
            if savedStates[id] != event.state { saveAfterEvent([id]) }
            if let properties = properties(of: entry) { signals.changed(id, properties) }
        case .finish:
            let lateness = Self.seconds(event.lateness)
            entry.finishedAt = Double(Clocks.realtime()) / 1e9 - lateness
            let wasHeld = entry.heldRecord != nil
            entry.heldRecord = nil
            entries[id] = entry
            // Before announcing: a finish is never announced twice. (If it
            // cannot be written, it is announced all the same: a ring missed
            // is worse than one repeated after a crash.)
            saveAfterEvent([id])
            signals.finished(id, (try? engine.label(of: entry.timer)) ?? "", lateness)
            if wasHeld { announceLate(entry, lateness: lateness) }
            startWaiting(after: id)
        }
    }

    /// Starts the timers that wait for timer `id` to finish.
    private func startWaiting(after id: UInt64) {
        var started: [UInt64] = []
        for (other, entry) in entries.sorted(by: { $0.key < $1.key }) where entry.after == id {
            entries[other]?.after = nil
            try? engine.start(entry.timer)
            started.append(other)
        }
        saveAfterEvent(started)
    }

    /// A timer that ran out while the service was away: the alarm if that
    /// was within the grace period, else one quiet alert saying when.
    private func announceLate(_ entry: Entry, lateness: Double) {
        guard let notifier, entry.alert || entry.sound else { return }
        if let stray = entry.notification { notifier.core.closeStray(stray) }  // its live one, from before
        let label = (try? engine.label(of: entry.timer)) ?? ""
        if lateness <= grace {
            notifier.show(Alert(summary: label, body: "Finished \(Self.ago(lateness)) ago",
                                sound: entry.sound ? Alert.defaultSound : nil, popup: entry.alert, actions: false))
        } else {
            notifier.show(Alert(summary: label, body: "\(label.isEmpty ? "A timer" : label) ran out \(Self.ago(lateness)) ago",
                                urgency: .normal, sound: nil, actions: false))
        }
    }

    /// "3 h", "12 min", "40 s".
    static func ago(_ seconds: Double) -> String {
        if seconds >= 3600 { return "\(Int(seconds / 3600)) h" }
        if seconds >= 60 { return "\(Int(seconds / 60)) min" }
        return "\(Int(seconds)) s"
    }

    // MARK: - Bookkeeping

    /// Registers `entry`: its handler, and its alert unless it was
    /// restored as already having run out.
    func adopt(_ entry: Entry) {
        entries[entry.id] = entry
        idsByHandle[entry.timer.rawValue] = entry.id
        let id = entry.id
        if entry.heldRecord == nil, entry.alert || entry.sound, let notifier {
            let label = (try? engine.label(of: entry.timer)) ?? ""
            let body = entry.kind == .alarm ? "Alarm" : "Time is up"
            let alert = Alert(
                summary: label, body: body, sound: entry.sound ? Alert.defaultSound : nil, popup: entry.alert,
                live: entry.live, warning: entry.warn > 0 ? .nanoseconds(entry.warn) : nil,
                warningSound: entry.sound ? Alert.defaultWarningSound : nil)
            // The buttons act through the service, which records each change.
            // (The service outlives its notifier: closed first at exit.)
            try? notifier.attach(entry.timer, in: engine, alert: alert, router: { [unowned self] timer, action in
                Self.onMainLoop { [unowned self] in perform(action, on: timer) }
                return true
            }, notification: entry.notification)
        }
        try? engine.setHandler(for: entry.timer) { [unowned self] event in handle(event, of: id) }
    }

    /// A button of a timer's notification, as the matching call. A change
    /// that cannot be saved is not made, and a notification says so.
    private func perform(_ action: HostAction, on timer: TimerID) {
        guard let id = idsByHandle[timer.rawValue] else { return }
        do throws(ServiceError) {
            switch action {
            case .start: try restart(id)
            case .suspend: try pause(id)
            case .resume: try resume(id)
            case .cancel: try cancel(id)
            case .adjust(let seconds): try adjust(id, by: seconds)
            }
        } catch where error.kind == .failed {
            let label = entries[id].flatMap { try? engine.label(of: $0.timer) } ?? ""
            let verb = switch action {
            case .start: "restart"
            case .suspend: "pause"
            case .resume: "resume"
            case .cancel: "cancel"
            case .adjust: "adjust"
            }
            notifier?.show(Alert(summary: label.isEmpty ? "Tocsin" : label, body: "Could not \(verb): \(error.message)",
                                 urgency: .normal, sound: nil, actions: false))
        } catch {}  // a button left from an earlier state: nothing to do
    }

    /// Runs `work` on the service's thread (the default main context), soon.
    private static func onMainLoop(_ work: @escaping @Sendable () -> Void) {
        let box = Unmanaged.passRetained(MainLoopWork(work)).toOpaque()
        g_main_context_invoke_full(nil, G_PRIORITY_DEFAULT, { raw in
            Unmanaged<MainLoopWork>.fromOpaque(raw.unsafelyUnwrapped).takeRetainedValue().work()
            return 0  // G_SOURCE_REMOVE
        }, box, nil)
    }

    func forget(_ id: UInt64) {
        if let entry = entries.removeValue(forKey: id) { idsByHandle[entry.timer.rawValue] = nil }
    }

    /// Undoes an `add` that could not be completed or saved.
    private func drop(_ id: UInt64, _ timer: TimerID) {
        forget(id)
        notifier?.detach(timer, in: engine)
        try? engine.free(timer)
    }

    /// Registers `entry` again, as it was (a removal that could not be saved).
    func adoptAgain(_ entry: Entry) {
        entries[entry.id] = entry
        idsByHandle[entry.timer.rawValue] = entry.id
    }

    func lookUp(_ id: UInt64) throws(ServiceError) -> Entry {
        guard let entry = entries[id] else { throw ServiceError(.noSuchTimer, "no timer \(id)") }
        return entry
    }

    func engineCall<Result>(_ body: () throws(TocsinError) -> Result) throws(ServiceError) -> Result {
        do throws(TocsinError) {
            return try body()
        } catch {
            throw ServiceError(error)
        }
    }

    /// The properties `List` and `Changed` carry.
    func properties(of entry: Entry) -> [(String, ServiceValue)]? {
        let timer = entry.timer
        guard let state = try? engine.state(of: timer), let elapsed = try? engine.elapsed(of: timer) else { return nil }
        var properties: [(String, ServiceValue)] = [
            ("id", .id(entry.id)), ("label", .text((try? engine.label(of: timer)) ?? "")),
            ("kind", .text(entry.kind.rawValue)), ("state", .text(state.description)),
            ("elapsed", .number(Self.seconds(elapsed))),
            ("clock", .text((try? engine.clock(of: timer)) == .awake ? "awake" : "boot")),
            ("laps", .numbers(((try? engine.laps(of: timer)) ?? []).map(Self.seconds))),
            ("live", .flag(entry.live)), ("warn", .number(Double(entry.warn) / 1e9)),
        ]
        if let remaining = try? engine.remaining(of: timer), let duration = try? engine.duration(of: timer) {
            properties += [("remaining", .number(Self.seconds(remaining))), ("duration", .number(Self.seconds(duration)))]
        }
        if let time = try? engine.alarmTime(of: timer) { properties.append(("alarm_time", .number(Self.seconds(time)))) }
        if let after = entry.after { properties.append(("after", .id(after))) }
        if state == .finished, let finishedAt = entry.finishedAt {
            properties.append(("finished_ago", .number(max(0, Double(Clocks.realtime()) / 1e9 - finishedAt))))
        }
        return properties
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    // MARK: - Options

    private func text(_ value: ServiceValue?, _ name: String) throws(ServiceError) -> String? {
        guard let value else { return nil }
        guard case .text(let text) = value else { throw ServiceError(.invalidArgument, "\(name) must be a string (s)") }
        return text
    }

    private func flag(_ value: ServiceValue?, _ name: String) throws(ServiceError) -> Bool? {
        guard let value else { return nil }
        guard case .flag(let flag) = value else { throw ServiceError(.invalidArgument, "\(name) must be a boolean (b)") }
        return flag
    }

    private func number(_ value: ServiceValue?, _ name: String) throws(ServiceError) -> Double? {
        guard let value else { return nil }
        guard case .number(let number) = value, number.isFinite, number >= 0 else {
            throw ServiceError(.invalidArgument, "\(name) must be a number of seconds >= 0 (d)")
        }
        return number
    }
}

private final class MainLoopWork: Sendable {
    let work: @Sendable () -> Void
    init(_ work: @escaping @Sendable () -> Void) { self.work = work }
}

extension ServiceError {
    /// The service's name for an engine failure.
    init(_ error: TocsinError) {
        let kind: Kind = switch error {
        case .noSuchTimer: .noSuchTimer
        case .invalidArgument: .invalidArgument
        case .wrongState: .wrongState
        default: .failed
        }
        self.init(kind, error.description)
    }
}
