/// A timer's events as an `AsyncSequence` (`TimerEngine.events(for:)`):
/// the events of the kinds asked for, from when it was made, in delivery
/// order, ending after the timer's run ends (its STATE event `.finished` or
/// `.canceled`, delivered if STATE events were asked for), after the timer
/// is freed or its engine closed, or when the timer's handler is set again.
/// A calendar alarm's FINISH leaves it running, so its sequence goes on
/// from ring to ring.
///
/// Several sequences of one timer each get every event of their kinds.
/// Events wait in the sequence's buffer until the iterating task takes
/// them, as `buffering` says: ticks past its limit drop the oldest tick
/// (the next one kept counts it in `missed`; dropping one costs O(buffer));
/// FINISH and STATE events are never dropped. A task that stops iterating
/// stops nothing in the engine; once the sequence and its iterator are
/// gone, its buffer is let go (the timer's handler lets go of the empty
/// subscription at the timer's next event).
///
/// A sequence ends with its run only while the timer's STATE events are
/// on: `events(for:)` turns them on, and a later `setEventKinds` without
/// `.stateChange` leaves its sequences open until the timer is freed.
///
/// It is `Sendable`; iterate it once, from one task. Cancelling the
/// iterating task ends the sequence: `next()` returns nil, and what was
/// buffered is let go.
public struct TimerEvents: AsyncSequence, Sendable {
    public typealias Element = TimerEvent
    public typealias Failure = Never

    /// How many events a sequence keeps for a consumer that is behind.
    public struct Buffering: Sendable, Hashable {
        /// The most ticks kept; nil: no limit.
        public let tickLimit: Int?

        /// Keeps the newest `limit` ticks (at least 1), dropping older ones:
        /// a slow consumer of a fast ticker sees where the timer is now.
        public static func newestTicks(_ limit: Int) -> Buffering { Buffering(tickLimit: Swift.max(1, limit)) }

        /// Keeps every event: memory grows while the consumer is behind.
        public static var unbounded: Buffering { Buffering(tickLimit: nil) }

        /// The default: the newest 64 ticks.
        public static var standard: Buffering { .newestTicks(64) }
    }

    private let consumer: EventConsumer

    init(_ consumer: EventConsumer) {
        self.consumer = consumer
    }

    /// Takes the events one by one; from one task.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let consumer: EventConsumer

        /// The next event; nil once the sequence has ended or the task is cancelled.
        public mutating func next() async -> TimerEvent? {
            await consumer.subscription.next()
        }

        /// The next event, as `next()`; nil at the end. (The wait itself is
        /// not on `actor`: it returns there.)
        public mutating func next(isolation actor: isolated (any Actor)?) async -> TimerEvent? {
            await consumer.subscription.next()
        }
    }

    /// The sequence's iterator (the sequence's one buffer: iterate once).
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(consumer: consumer)
    }
}

/// The consumer's hold on its subscription: when the last sequence value
/// and iterator are gone, the subscription is ended and its buffer freed.
final class EventConsumer: Sendable {
    let subscription: EventSubscription

    init(_ subscription: EventSubscription) {
        self.subscription = subscription
    }

    deinit {
        subscription.end(discarding: true)
    }
}
