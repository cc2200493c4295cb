public import Tocsin
@_exported public import TocsinDesktop

/// The notifier for Swift programs: attaching the timers of a `TimerEngine`.
extension Notifier {
    /// Shows `alert` and plays its sound whenever `timer` finishes; withdraws
    /// it when the timer is started again or cancelled.
    public func attach(_ timer: TimerID, in engine: TimerEngine, alert: Alert = Alert()) throws(TocsinError) {
        try attach(timer, in: engine, alert: alert, router: nil)
    }

    /// Attaches with the buttons' calls made by `router` instead of on the
    /// engine directly (the timer service records each change first). The
    /// engine's first attachment decides.
    /// `notification`: the server id of the timer's notification an earlier
    /// process showed, replaced by the first one shown now.
    package func attach(_ timer: TimerID, in engine: TimerEngine, alert: Alert,
                        router: (@Sendable (TimerID, HostAction) -> Bool)?, notification: UInt32? = nil) throws(TocsinError) {
        _ = try engine.state(of: timer)  // unknown handles and closed engines fail here
        let known: (any AlertHost)? = hostID(of: engine).flatMap { id in core.lock.withLock { core.hosts[id] } }
        try core.attach(timer.rawValue, host: known ?? EngineHost(engine, router: router), alert: alert, notification: notification)
    }

    /// Brings the timer's live notification up to date at once (after a
    /// change that sends no state event, such as an adjust).
    package func refresh(_ timer: TimerID, in engine: TimerEngine) {
        core.refresh(AlertKey(host: hostID(of: engine), timer: timer.rawValue))
    }

    /// Presents the finish of a timer attached with `alert.announcedByHost`
    /// (see `NotifierCore.announceFinish`); false if it has no alert attached.
    package func announceFinish(_ timer: TimerID, in engine: TimerEngine, override: Alert? = nil,
                                replacing notification: UInt32? = nil) -> Bool {
        core.announceFinish(AlertKey(host: hostID(of: engine), timer: timer.rawValue), override: override,
                            replacing: notification)
    }

    /// The alarm of `timer` was snoozed for `nanoseconds` (see
    /// `NotifierCore.showSnoozed`).
    package func showSnoozed(_ timer: TimerID, in engine: TimerEngine, for nanoseconds: Int64) {
        core.showSnoozed(AlertKey(host: hostID(of: engine), timer: timer.rawValue), for: nanoseconds)
    }

    public func detach(_ timer: TimerID, in engine: TimerEngine) {
        core.detach(AlertKey(host: hostID(of: engine), timer: timer.rawValue))
    }

    /// Silences and dismisses the timer's alert (what the Stop button does).
    public func stop(_ timer: TimerID, in engine: TimerEngine) {
        core.withdraw(AlertKey(host: hostID(of: engine), timer: timer.rawValue))
    }

    /// The id the engine's host is registered under.
    private func hostID(of engine: TimerEngine) -> ObjectIdentifier? {
        core.lock.withLock { core.hosts.first { ($0.value as? EngineHost)?.engine === engine }?.key }
    }
}

/// A Swift `TimerEngine` as an alert host.
final class EngineHost: AlertHost, @unchecked Sendable {
    let engine: TimerEngine
    let router: (@Sendable (TimerID, HostAction) -> Bool)?
    /// Written once by `observe`, read by `stopObserving`, both under the notifier's lock.
    private var observer: ObserverID?

    init(_ engine: TimerEngine, router: (@Sendable (TimerID, HostAction) -> Bool)? = nil) {
        self.engine = engine
        self.router = router
    }

    func label(of timer: UInt64) -> String {
        (try? engine.label(of: TimerID(rawValue: timer))) ?? ""
    }

    func reading(of timer: UInt64) -> HostReading? {
        let id = TimerID(rawValue: timer)
        guard let state = try? engine.state(of: id), let elapsed = try? engine.elapsed(of: id) else { return nil }
        let hostState: HostReading.State = switch state {
        case .idle: .idle
        case .running: .running
        case .suspended: .suspended
        case .finished: .finished
        case .canceled: .canceled
        }
        return HostReading(state: hostState, remaining: (try? engine.remaining(of: id))?.nanoseconds,
                           elapsed: elapsed.nanoseconds, isAlarm: (try? engine.alarmTime(of: id)) != nil)
    }

    func perform(_ action: HostAction, on timer: UInt64) -> Bool {
        if let router { return router(TimerID(rawValue: timer), action) }
        return Self.perform(action, on: TimerID(rawValue: timer), in: engine)
    }

    /// Does what a button asks on `engine`; false if the engine refused.
    private static func perform(_ action: HostAction, on timer: TimerID, in engine: TimerEngine) -> Bool {
        do throws(TocsinError) {
            switch action {
            case .start: try engine.start(timer)
            case .suspend: try engine.suspend(timer)
            case .resume: try engine.resume(timer)
            case .cancel: try engine.cancel(timer)
            case .adjust(let seconds), .snooze(let seconds):
                guard let delta = Nanos.from(signedSeconds: seconds) else { return false }
                try engine.adjust(timer, byNanoseconds: delta)
            case .skip:
                do throws(TocsinError) {
                    try engine.skipRings(timer, count: 1)
                } catch .invalidArgument {
                    try engine.cancel(timer)  // not a calendar alarm: its one ring is the coming one
                }
            }
            return true
        } catch {
            return false
        }
    }

    func observe(_ handler: @escaping @Sendable (UInt64, HostEvent) -> Void) -> Bool {
        observer = try? engine.addObserver { event in
            switch (event.kind, event.state) {
            case (.finish, _): handler(event.timer.rawValue, .finished)
            case (.stateChange, .running): handler(event.timer.rawValue, .running)
            case (.stateChange, .suspended): handler(event.timer.rawValue, .suspended)
            case (.stateChange, .canceled): handler(event.timer.rawValue, .canceled)
            default: break
            }
        }
        return observer != nil
    }

    func stopObserving() {
        if let observer { _ = try? engine.removeObserver(observer) }
        observer = nil
    }
}
