/// What the notifier needs of an engine: its timers' events, labels and
/// times, and the calls behind the buttons. Implemented over a Swift
/// `TimerEngine` and over the C ABI (`tocsin_engine *`).
///
/// Every method may be called from any thread; `reading` and `label` never
/// wait for the engine's delivery.
package protocol AlertHost: AnyObject, Sendable {
    func label(of timer: UInt64) -> String
    /// The timer's state and times now; nil if it is gone.
    func reading(of timer: UInt64) -> HostReading?
    /// Does what a button asks; false if the engine refused.
    func perform(_ action: HostAction, on timer: UInt64) -> Bool
    /// Follows every timer's events; false if the engine refused.
    func observe(_ handler: @escaping @Sendable (UInt64, HostEvent) -> Void) -> Bool
    func stopObserving()
    /// The host's identity (the default, from the concrete type: Embedded
    /// Swift cannot take an `ObjectIdentifier` of an existential).
    var hostID: ObjectIdentifier { get }
}

extension AlertHost {
    package var hostID: ObjectIdentifier { ObjectIdentifier(self) }
}

package enum HostEvent: Sendable {
    case finished, running, suspended, canceled
}

/// A button's call on the engine.
package enum HostAction: Sendable, Equatable {
    /// Start the timer (again).
    case start
    case suspend, resume, cancel
    /// Give the timer this many seconds more (a finished countdown runs
    /// again with that much left).
    case adjust(seconds: Double)
    /// The alarm's Snooze: ring again this many seconds from now (a
    /// finished countdown or alarm: the same as `adjust`; the timer
    /// service also snoozes a calendar alarm without moving its times).
    case snooze(seconds: Double)
    /// The upcoming-alarm notice's Skip this one: a calendar alarm skips its
    /// coming ring; a one-time alarm is cancelled.
    case skip
}

/// A timer's state and times, as the live notification shows them.
package struct HostReading: Sendable, Equatable {
    package enum State: Sendable { case idle, running, suspended, finished, canceled }

    package var state: State
    /// Nanoseconds left; nil for a stopwatch.
    package var remaining: Int64?
    /// Nanoseconds run.
    package var elapsed: Int64
    /// True for a wall-clock alarm (no Restart button: its time has passed).
    package var isAlarm: Bool

    package init(state: State, remaining: Int64?, elapsed: Int64, isAlarm: Bool) {
        self.state = state
        self.remaining = remaining
        self.elapsed = elapsed
        self.isAlarm = isAlarm
    }
}
