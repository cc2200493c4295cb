import Tocsin

/// What the notifier needs of an engine: its timers' events and labels, and
/// starting timers for the Restart and +1 min buttons. Implemented over a
/// Swift `TimerEngine` and over the C ABI (`tocsin_engine *`).
package protocol AlertHost: AnyObject, Sendable {
    func label(of timer: UInt64) -> String
    /// Starts the timer (again).
    func start(_ timer: UInt64) -> Bool
    /// A new idle countdown with the timer's label, for a snooze.
    func makeCountdown(like timer: UInt64, seconds: Double) -> UInt64?
    /// Follows every timer's events; false if the engine refused.
    func observe(_ handler: @escaping @Sendable (UInt64, HostEvent) -> Void) -> Bool
    func stopObserving()
}

package enum HostEvent: Sendable {
    case finished, running, canceled
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

    func makeCountdown(like timer: UInt64, seconds: Double) -> UInt64? {
        guard let fresh = try? engine.countdown(.milliseconds(Int64(seconds * 1000))) else { return nil }
        try? engine.setLabel(label(of: timer), for: fresh)
        return fresh.rawValue
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
