/// Why `TimerEngine.finish(of:)` returned no FINISH.
public enum TimerWaitError: Error, Hashable, Sendable {
    /// The timer's run was cancelled before it finished.
    case canceled
    /// The timer was freed, its engine closed, or its handler set again
    /// before it finished.
    case gone
    /// The waiting task was cancelled.
    case taskCancelled
    /// The engine refused: `.noSuchTimer` for an unknown timer, `.closed`.
    case engine(TocsinError)
}

extension TimerEngine {
    /// The timer's events from now on, as an `AsyncSequence` that ends after
    /// the timer's run ends (finished or cancelled), it is freed, or its
    /// engine closes (`TimerEvents` gives the rules).
    ///
    /// It takes the timer's one handler, as `setHandler(for:_:)` does (which
    /// ends the sequence), and lets every kind of event through
    /// (`setEventKinds(.all, for:)`), so that it sees how the run ends.
    ///
    ///     for await event in try engine.events(for: tea) {
    ///         print(event.kind, event.remaining ?? .zero)
    ///     }
    ///
    /// Thread safety: call it from any thread; iterate from one task.
    ///
    /// - Throws: `.noSuchTimer`, `.closed`.
    public func events(for timer: TimerID) throws(TocsinError) -> TimerEvents {
        let (stream, continuation) = AsyncStream.makeStream(of: TimerEvent.self, bufferingPolicy: .unbounded)
        let feed = EventFeed(continuation)
        try setHandler(for: timer) { event in feed.take(event) }
        try setEventKinds(.all, for: timer)  // after: once all kinds pass, the feed has them
        return TimerEvents(stream)
    }

    /// Waits for the timer's FINISH and returns it: the end of the current
    /// run, or of the next one if the timer is idle, suspended or cancelled
    /// now; at once if it has finished already (a FINISH made from its
    /// state, lateness zero). A calendar alarm's next ring. Takes the
    /// timer's handler, as `events(for:)` does.
    ///
    /// - Throws: `.canceled` if the run is cancelled first, `.gone` if the
    ///   timer is freed, its engine closed or its handler set again,
    ///   `.taskCancelled`, `.engine(.noSuchTimer)`.
    @discardableResult
    public func finish(of timer: TimerID) async throws(TimerWaitError) -> TimerEvent {
        let events: TimerEvents
        let state: TimerState
        do {
            events = try self.events(for: timer)
            state = try self.state(of: timer)  // after taking the handler: no FINISH slips between
        } catch {
            throw .engine(error)
        }
        if state == .finished {
            let duration = (try? self.duration(of: timer)) ?? nil
            return TimerEvent(
                kind: .finish, state: .finished, timer: timer, elapsed: duration ?? .zero, remaining: .zero,
                tick: 0, lateness: .zero)
        }
        var waitingForRun = state != .running && state != .suspended
        for await event in events {
            if event.kind == .finish { return event }
            if event.kind == .stateChange {
                if event.state == .running { waitingForRun = false }
                if event.state == .canceled && !waitingForRun { throw .canceled }
            }
        }
        throw Task.isCancelled ? .taskCancelled : .gone
    }
}
