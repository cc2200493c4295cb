/// The handler `TimerEngine.events(for:)` gives a timer: it hands each
/// event to every `EventSubscription` of that timer, so several sequences
/// (and `waitForFinish(of:)`) share the timer's one handler. Released with
/// the handler (set again, timer freed, engine closed), it ends them all.
final class EventHub: Sendable {
    private struct Key: Hashable {
        let engine: ObjectIdentifier
        let timer: TimerID
    }

    /// The hub of each timer that has had one; weak, so that only the
    /// engine's handler keeps a hub alive. Entries of gone hubs are swept
    /// as the table doubles (a hub's deinit does not take the lock: it may
    /// run inside `subscribe`, as a handler it replaced is released).
    private static let hubs = Guarded(HubTable())

    private let subscriptions = Guarded([EventSubscription]())

    private init() {}

    deinit {
        for subscription in subscriptions.withLock({ $0 }) { subscription.end() }
    }

    /// Adds `subscription` to the timer's hub, installing a hub as its
    /// handler if it has none, and turns on the subscription's kinds and
    /// STATE (to see the run end) beside those the timer has.
    ///
    /// - Throws: `.noSuchTimer`, `.closed`.
    static func subscribe(
        _ subscription: EventSubscription, to timer: TimerID, on engine: TimerEngine
    ) throws(TocsinError) {
        let key = Key(engine: ObjectIdentifier(engine), timer: timer)
        // One at a time, so that two first subscribers make one hub.
        try hubs.withLock { table throws(TocsinError) in
            let hub: EventHub
            if let live = table.hubs[key]?.hub {
                hub = live
            } else {
                hub = EventHub()
                try engine.setHandler(for: timer) { [hub] event in hub.deliver(event) }
                table.add(hub, for: key)
            }
            hub.subscriptions.withLock { $0.append(subscription) }
            // After the hub holds it: once the kinds pass, the subscription has them.
            let kinds = try engine.eventKinds(of: timer)
            let wanted = kinds.union(subscription.kinds).union(.stateChange)
            if wanted != kinds { try engine.setEventKinds(wanted, for: timer) }
        }
    }

    /// The handler: every subscription gets the event; ended ones are let go.
    private func deliver(_ event: TimerEvent) {
        let current = subscriptions.withLock { subscriptions in
            subscriptions.removeAll { $0.hasEnded }
            return subscriptions
        }
        for subscription in current { subscription.take(event) }
    }

    /// The hubs by timer, and the size at which gone ones are next swept.
    private struct HubTable {
        var hubs: [Key: WeakHub] = [:]
        var sweepAt = 64

        mutating func add(_ hub: EventHub, for key: Key) {
            hubs[key] = WeakHub(hub: hub)
            guard hubs.count >= sweepAt else { return }
            hubs = hubs.filter { $0.value.hub != nil }
            sweepAt = max(64, 2 * hubs.count)
        }
    }

    /// A weak reference to a hub.
    private struct WeakHub {
        weak var hub: EventHub?
    }
}
