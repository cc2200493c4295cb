/// A timer's events as an `AsyncSequence` (`TimerEngine.events(for:)`):
/// every event from when it was made, in delivery order, ending after the
/// STATE event of the timer's run ending (`.finished` or `.canceled`),
/// after the timer is freed or its engine closed, or when the timer's
/// handler is set again. A calendar alarm's FINISH leaves it running, so
/// its sequence goes on from ring to ring.
///
/// Events are buffered, without bound, until the iterating task takes
/// them; a task that stops iterating stops nothing in the engine. One task
/// iterates it (it is `Sendable`, its iterator is not).
public struct TimerEvents: AsyncSequence, Sendable {
    public typealias Element = TimerEvent
    public typealias Failure = Never

    private let stream: AsyncStream<TimerEvent>

    init(_ stream: AsyncStream<TimerEvent>) {
        self.stream = stream
    }

    /// Takes the events one by one; from one task.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: AsyncStream<TimerEvent>.AsyncIterator

        /// The next event; nil once the sequence has ended or the task is cancelled.
        public mutating func next() async -> TimerEvent? {
            await base.next()
        }

        /// The next event, awaited on `actor`'s executor; nil at the end.
        public mutating func next(isolation actor: isolated (any Actor)?) async -> TimerEvent? {
            await base.next(isolation: actor)
        }
    }

    /// An iterator over the events; make one per sequence.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: stream.makeAsyncIterator())
    }
}

/// The handler's end of a `TimerEvents`: released with the handler (set
/// again, timer freed, engine closed), it ends the sequence.
final class EventFeed: Sendable {
    let continuation: AsyncStream<TimerEvent>.Continuation

    init(_ continuation: AsyncStream<TimerEvent>.Continuation) {
        self.continuation = continuation
    }

    deinit {
        continuation.finish()
    }

    func take(_ event: TimerEvent) {
        continuation.yield(event)
        if event.kind == .stateChange, event.state == .finished || event.state == .canceled {
            continuation.finish()
        }
    }
}
