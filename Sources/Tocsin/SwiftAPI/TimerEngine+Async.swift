/// Why `TimerEngine.waitForFinish(of:)` returned no FINISH (other than the
/// waiting task's cancellation, which throws `CancellationError`).
public enum TimerWaitError: Error, Hashable, Sendable {
    /// The timer's run was cancelled before it finished.
    case canceled
    /// The timer was freed, its engine closed, or its handler set again
    /// (`setHandler(for:_:)`) before it finished.
    case gone
    /// The engine refused: `.noSuchTimer` for an unknown timer, `.closed`.
    case engine(TocsinError)
}

extension TimerEngine {
    /// The timer's events from now on, as an `AsyncSequence` that ends after
    /// the timer's run ends (finished or cancelled), it is freed, its engine
    /// closes or its handler is set again (`TimerEvents` gives the rules).
    ///
    /// The sequence gets the events of `kinds` (nil: the kinds the timer's
    /// handler gets now, `eventKinds(of:)`, which earlier sequences may have
    /// widened). The timer's handler becomes one that serves every sequence
    /// of the timer, each with its own kinds and buffer, and
    /// `waitForFinish(of:)`; the timer's kinds become the union of what
    /// they ask, plus STATE, to see the run end, and stay so after they end.
    /// A handler set later with `setHandler(for:_:)` ends them all.
    ///
    ///     for await event in try engine.events(for: tea) {
    ///         print(event.kind, event.remaining ?? .zero)
    ///     }
    ///
    /// Thread safety: call it from any thread; iterate each sequence once,
    /// from one task.
    ///
    /// - Throws: `.noSuchTimer`, `.closed`.
    /// - Complexity: each event costs O(sequences of the timer); a sequence
    ///   holds at most `buffering`'s ticks (FINISH and STATE events are kept).
    public func events(
        for timer: TimerID, kinds: TimerEvent.Kinds? = nil, buffering: TimerEvents.Buffering = .standard
    ) throws(TocsinError) -> TimerEvents {
        let wanted: TimerEvent.Kinds
        if let kinds { wanted = kinds } else { wanted = try eventKinds(of: timer) }
        let subscription = EventSubscription(kinds: wanted, buffering: buffering)
        try EventHub.subscribe(subscription, to: timer, on: self)
        return TimerEvents(EventConsumer(subscription))
    }

    /// Waits for the timer's FINISH and returns it: the end of the current
    /// run (a suspended timer's too), or of the next one if the timer is
    /// idle or cancelled now; at once if it has finished already (a FINISH
    /// made from its state, lateness zero). A calendar alarm's next ring.
    /// It shares the timer's handler as `events(for:)` does.
    ///
    ///     do {
    ///         try await engine.waitForFinish(of: egg)
    ///     } catch is CancellationError { … }
    ///
    /// - Throws: `CancellationError` if the waiting task is cancelled;
    ///   `TimerWaitError.canceled` if the run is cancelled first, `.gone` if
    ///   the timer is freed, its engine closed or its handler set again,
    ///   `.engine(.noSuchTimer)`, `.engine(.closed)`.
    @discardableResult
    public func waitForFinish(of timer: TimerID) async throws -> TimerEvent {
        try Task.checkCancellation()
        let events: TimerEvents
        let state: TimerState
        do {
            events = try self.events(for: timer, kinds: [.finish, .stateChange], buffering: .newestTicks(1))
            state = try self.state(of: timer)  // after subscribing: no FINISH slips between
        } catch {
            throw TimerWaitError.engine(error)
        }
        if state == .finished {
            let duration = (try? self.duration(of: timer)) ?? nil
            return TimerEvent(
                kind: .finish, state: .finished, timer: timer, elapsed: duration ?? .zero, remaining: .zero,
                tick: 0, lateness: .zero)
        }
        for await event in events {
            if event.kind == .finish { return event }
            // The run waited for was cancelled; or, waiting for a run, a
            // cancel made before the state was read (its STATE ends the
            // sequence either way).
            if event.kind == .stateChange && event.state == .canceled { throw TimerWaitError.canceled }
        }
        try Task.checkCancellation()
        throw TimerWaitError.gone
    }
}
