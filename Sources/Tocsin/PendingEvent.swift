/// A STATE event waiting for delivery (its remaining time is derived from
/// the timer's duration when it is taken), or a held FINISH. 24 bytes:
/// the timer is named by slot and generation, its handle's third part being
/// the engine's own tag, so a million queued events take 24 MB, not 32.
struct PendingEvent {
    var slot: Int32
    var generation: UInt16
    var state: TimerState
    var isFinish = false
    var time: Int64
    var elapsed: Int64

    /// The event of timer `index` of `slots`, now in `state`.
    @inline(__always)
    init(of index: Int32, in slots: SlotTable, state: TimerState, time: Int64, elapsed: Int64, isFinish: Bool = false) {
        self.slot = index
        self.generation = slots[index].pointee.generation
        self.state = state
        self.isFinish = isFinish
        self.time = time
        self.elapsed = elapsed
    }

    var kind: TimerEvent.Kind { isFinish ? .finish : .stateChange }

    /// The event to deliver, for its live timer `index` of `slots`. `kind` is
    /// this event's `kind`, passed in by a caller that has read it already
    /// (reading it twice cost the batch claim 8 instructions an event). The
    /// remaining time is the countdown's duration now less the elapsed time
    /// queued; an adjustment made since that shortened it below that is
    /// pinned at zero left.
    @inline(__always)
    func engineEvent(_ kind: TimerEvent.Kind, of index: Int32, in slots: SlotTable) -> EngineEvent {
        let slot = slots[index]
        let elapsed = slot.pointee.isStopwatch ? elapsed : min(elapsed, slot.pointee.duration)
        return EngineEvent(
            kind: kind, state: state, handle: slots.handle(of: index), elapsed: elapsed,
            remaining: slot.pointee.remaining(after: elapsed), tick: 0, due: time)
    }
}
