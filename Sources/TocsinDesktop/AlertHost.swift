/// What the notifier needs of an engine: its timers' events and labels, and
/// starting timers for the Restart and +1 min buttons. Implemented over a
/// Swift `TimerEngine` and over the C ABI (`tocsin_engine *`).
package protocol AlertHost: AnyObject, Sendable {
    func label(of timer: UInt64) -> String
    /// Starts the timer (again).
    func start(_ timer: UInt64) -> Bool
    /// Gives the timer `seconds` more (a finished countdown runs again with
    /// that much left), for a snooze.
    func adjust(_ timer: UInt64, seconds: Double) -> Bool
    /// Follows every timer's events; false if the engine refused.
    func observe(_ handler: @escaping @Sendable (UInt64, HostEvent) -> Void) -> Bool
    func stopObserving()
}

package enum HostEvent: Sendable {
    case finished, running, canceled
}
