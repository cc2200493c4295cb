import CTocsin
import TocsinBase

/// An event taken for delivery, in nanoseconds, before it is shaped for a
/// Swift handler (`TimerEvent`) or a C callback (`tocsin_event`).
struct EngineEvent {
    var kind: TimerEvent.Kind
    var state: TimerState
    var handle: UInt64
    var elapsed: Int64
    /// Nil for a stopwatch.
    var remaining: Int64?
    var tick: UInt64
    /// When the event fell due on the engine's clock.
    var due: Int64
    /// Ticks skipped before a coalesced TICK; 0 otherwise.
    var missed: UInt64 = 0

    func timerEvent(lateness: Int64) -> TimerEvent {
        TimerEvent(
            kind: kind, state: state, timer: TimerID(rawValue: handle),
            elapsed: .nanoseconds(elapsed), remaining: remaining.map { .nanoseconds($0) },
            tick: tick, lateness: .nanoseconds(lateness), missed: missed)
    }

    func cEvent(lateness: Int64) -> tocsin_event {
        tocsin_event(
            kind: kind.rawValue, state: state.rawValue, timer: handle,
            elapsed: Nanos.seconds(elapsed), remaining: remaining.map(Nanos.seconds) ?? -1,
            tick: tick, lateness: Nanos.seconds(lateness), missed: missed)
    }
}
