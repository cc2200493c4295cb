public import Tocsin
@_exported public import TocsinDesktop

/// The notifier for Swift programs: attaching the timers of a `TimerEngine`.
extension Notifier {
    /// Shows `alert` and plays its sound whenever `timer` finishes; withdraws
    /// it when the timer is started again or cancelled.
    public func attach(_ timer: TimerID, in engine: TimerEngine, alert: Alert = Alert()) throws(TocsinError) {
        _ = try engine.state(of: timer)  // unknown handles and closed engines fail here
        let known: (any AlertHost)? = hostID(of: engine).flatMap { id in lock.withLock { hosts[id] } }
        try attach(timer.rawValue, host: known ?? EngineHost(engine), alert: alert)
    }

    public func detach(_ timer: TimerID, in engine: TimerEngine) {
        detach(AlertKey(host: hostID(of: engine), timer: timer.rawValue))
    }

    /// Silences and dismisses the timer's alert (what the Stop button does).
    public func stop(_ timer: TimerID, in engine: TimerEngine) {
        withdraw(AlertKey(host: hostID(of: engine), timer: timer.rawValue))
    }

    /// The id the engine's host is registered under.
    private func hostID(of engine: TimerEngine) -> ObjectIdentifier? {
        lock.withLock { hosts.first { ($0.value as? EngineHost)?.engine === engine }?.key }
    }
}

/// A Swift `TimerEngine` as an alert host.
final class EngineHost: AlertHost, @unchecked Sendable {
    let engine: TimerEngine
    /// Written once by `observe`, read by `stopObserving`, both under the notifier's lock.
    private var observer: ObserverID?

    init(_ engine: TimerEngine) {
        self.engine = engine
    }

    func label(of timer: UInt64) -> String {
        (try? engine.label(of: TimerID(rawValue: timer))) ?? ""
    }

    func start(_ timer: UInt64) -> Bool {
        (try? engine.start(TimerID(rawValue: timer))) != nil
    }

    func adjust(_ timer: UInt64, seconds: Double) -> Bool {
        guard let delta = Nanos.from(signedSeconds: seconds) else { return false }
        return (try? engine.adjust(TimerID(rawValue: timer), byNanoseconds: delta)) != nil
    }

    func observe(_ handler: @escaping @Sendable (UInt64, HostEvent) -> Void) -> Bool {
        observer = try? engine.addObserver { event in
            switch (event.kind, event.state) {
            case (.finish, _): handler(event.timer.rawValue, .finished)
            case (.stateChange, .running): handler(event.timer.rawValue, .running)
            case (.stateChange, .canceled): handler(event.timer.rawValue, .canceled)
            default: break
            }
        }
        return observer != nil
    }

    func stopObserving() {
        if let observer { try? engine.removeObserver(observer) }
        observer = nil
    }
}
