/// One `TimerEvents` sequence's buffer: what the timer's `EventHub` hands it
/// (on the engine's delivery thread) and its consumer has not taken yet.
final class EventSubscription: Sendable {
    private struct State {
        var queue: [TimerEvent] = []
        var head = 0
        var ticks = 0
        var ended = false
        var waiter: UnsafeContinuation<TimerEvent?, Never>?
    }

    /// The kinds the consumer asked for; the rest pass it by.
    let kinds: TimerEvent.Kinds
    private let tickLimit: Int?
    private let state = Guarded(State())

    init(kinds: TimerEvent.Kinds, buffering: TimerEvents.Buffering) {
        self.kinds = kinds
        tickLimit = buffering.tickLimit
    }

    var hasEnded: Bool { state.withLock { $0.ended } }

    /// An event of the timer: kept or handed to the waiting consumer. The
    /// STATE event ending the run ends the subscription after it.
    func take(_ event: TimerEvent) {
        let endsRun = event.kind == .stateChange && (event.state == .finished || event.state == .canceled)
        let wanted = kinds.contains(TimerEvent.Kinds(event.kind))
        let resume: (UnsafeContinuation<TimerEvent?, Never>, TimerEvent?)? = state.withLock { state in
            guard !state.ended else { return nil }
            if endsRun { state.ended = true }
            if let waiter = state.waiter, wanted || endsRun {
                state.waiter = nil
                return (waiter, wanted ? event : nil)
            }
            if wanted { Self.keep(event, in: &state, tickLimit: tickLimit) }
            return nil
        }
        if let (waiter, event) = resume { waiter.resume(returning: event) }
    }

    /// Queues `event`; past the tick limit the oldest queued tick goes, and
    /// the tick after it counts it (and what it had missed) in `missed`.
    private static func keep(_ event: TimerEvent, in state: inout State, tickLimit: Int?) {
        state.queue.append(event)
        guard event.kind == .tick else { return }
        state.ticks += 1
        guard let tickLimit, state.ticks > tickLimit,
              let oldest = state.queue[state.head...].firstIndex(where: { $0.kind == .tick }),
              let next = state.queue[(oldest + 1)...].firstIndex(where: { $0.kind == .tick }) else { return }
        state.queue[next].missed &+= 1 &+ state.queue[oldest].missed
        state.queue.remove(at: oldest)
        state.ticks -= 1
    }

    /// Ends the subscription: a waiting consumer gets nil. When the hub went
    /// (the timer's handler was released), what is queued can still be
    /// taken; when the consumer went or was cancelled (`discarding`), the
    /// queue is let go at once.
    func end(discarding: Bool = false) {
        let waiter: UnsafeContinuation<TimerEvent?, Never>? = state.withLock { state in
            state.ended = true
            if discarding {
                state.queue = []
                state.head = 0
                state.ticks = 0
            }
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: nil)
    }

    /// The next event: at once if one is queued, nil once ended and empty,
    /// else when one comes. Cancelling the task ends the subscription and
    /// lets its queue go: nil from then on. From one task at a time (a
    /// second `next` while one waits gets nil).
    func next() async -> TimerEvent? {
        await withTaskCancellationHandler {
            await withUnsafeContinuation { continuation in
                let ready: TimerEvent?? = state.withLock { state in
                    if state.head < state.queue.count {
                        let event = state.queue[state.head]
                        state.head += 1
                        if event.kind == .tick { state.ticks -= 1 }
                        if state.head == state.queue.count || state.head >= 64 {  // compact now and then
                            state.queue.removeFirst(state.head)
                            state.head = 0
                        }
                        return .some(event)
                    }
                    if state.ended || state.waiter != nil { return .some(nil) }  // (one iterating task)
                    state.waiter = continuation
                    return .none
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            end(discarding: true)
        }
    }
}
