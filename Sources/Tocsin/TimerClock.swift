/// Which time a timer counts (`TimerEngine.setClock`); the raw values are
/// C's `TOCSIN_CLOCK_*`.
public enum TimerClock: Int32, Sendable, CaseIterable {
    /// Real time, including time the machine spends suspended
    /// (`CLOCK_BOOTTIME`; the default).
    case boot = 0
    /// Only time the machine is awake (`CLOCK_MONOTONIC`): a suspend pauses it.
    case awake = 1
}
