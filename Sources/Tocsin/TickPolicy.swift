/// What happens to ticks that are all due at once (`TimerEngine.setTickPolicy`);
/// the raw values are C's `TOCSIN_TICKS_*`.
public enum TickPolicy: Int32, Sendable, CaseIterable {
    /// Every tick is delivered, each with its own number (the default), up
    /// to `TimerEngine.tickBurst` in one delivery round; the rest of a
    /// round's are folded into its latest, with `missed` (tocsin.h, BOUNDED
    /// ROUNDS).
    case every = 0
    /// Ticks due together are delivered as one TICK of the latest, with
    /// `TimerEvent.missed` the number skipped.
    case coalesce = 1
}
