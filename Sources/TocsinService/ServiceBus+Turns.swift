import CGio

/// Callers take turns (docs/dbus.md, Fairness): a client that sends calls
/// as fast as it can does not hold up another's.
///
/// A call that changes something waits in its caller's queue; rounds run
/// them one per caller in turn, at most `roundCalls` calls or `roundMicros`
/// of work a round, then sync the journal once for the whole round and only
/// then answer them (nothing is acknowledged that is not on disk). Between
/// rounds the main loop reads what came in, so a `List` or `ListColumns`
/// from a caller with nothing waiting is answered at once, from saved state.
/// Each caller's own calls still run, and are answered, in the order sent.
///
/// What the service sends is paced too: after a round's answers, or a
/// batch of at most `roundCalls` signals, the next round or batch waits
/// until the bus daemon has routed them: it asks the daemon for its id
/// (`GetId`, asynchronously), whose answer comes after everything sent
/// before it. Else answers and signals made faster than the daemon routes
/// them pile up in its memory (it reads each connection eagerly, up to the
/// session bus's 1 GB) in front of every other caller's answer; waiting
/// for a flush is not enough, since the daemon reads them at once.
extension ServiceBus {
    /// Calls that change nothing: answered at once when their caller has
    /// nothing waiting.
    static let readMethods: Set = ["List", "ListColumns", "Watch", "Subscribe"]
    /// The most calls a round runs, and signals a batch sends: with 64 the
    /// other client's p99 under a 12,000-Add flood was 103–231 ms in five
    /// runs, with 128 123–318, with 256 236–306 (bench/flood.c), at about
    /// the same number of Adds a second.
    static let roundCalls = 64
    /// The most work a round does (µs) before it syncs and answers.
    static let roundMicros: Int64 = 10_000

    /// The queues and the round's state.
    struct Turns {
        /// Each caller's calls not yet run, in the order sent, by unique name.
        var queues: [String: Queue<(method: String, invocation: OpaquePointer)>] = [:]
        /// The callers with calls waiting, whose turn is next first.
        var order: [String] = []
        /// The main loop's source that runs rounds; 0 when none is due.
        var source: guint = 0
        /// True from sending answers or signals until the bus daemon has
        /// routed them.
        var waitingForBus = false
        /// True while a round runs: its signals wait for its answers.
        var isTaking = false
        /// Signals not sent yet, in order (name, arguments held, and the
        /// owner of the timer they are about: nil for the user's).
        var outgoing = Queue<(signal: String, arguments: OpaquePointer, owner: String?)>()
    }

    /// A first-in first-out queue over an array (emptied when drained).
    struct Queue<Element> {
        private var items: [Element] = []
        private var head = 0
        var isEmpty: Bool { head == items.count }
        var count: Int { items.count - head }

        mutating func append(_ item: Element) {
            items.append(item)
        }

        mutating func removeFirst() -> Element? {
            guard !isEmpty else { return nil }
            defer {
                head += 1
                if isEmpty { (items, head) = ([], 0) }
            }
            return items[head]
        }

        /// Removes the last `count - keeping` items, returning them.
        mutating func cut(keeping: Int) -> [Element] {
            let cut = Array(items[(head + keeping)...])
            items.removeLast(cut.count)
            return cut
        }
    }

    /// A call from the bus: answered now if it only reads and its caller
    /// has nothing waiting, else queued for the next round.
    func receive(_ method: String, _ invocation: OpaquePointer) {
        let sender = g_dbus_method_invocation_get_sender(invocation).map { String(cString: $0) } ?? ""
        if Self.readMethods.contains(method) && turns.queues[sender] == nil {
            answer(invocation, execute(method, invocation))
            afterCall()
            return
        }
        if turns.queues[sender] == nil { turns.order.append(sender) }
        turns.queues[sender, default: Queue()].append((method, invocation))
        scheduleRound()
    }

    /// Runs a round soon, unless one is due or the last one's answers are
    /// still being sent.
    private func scheduleRound() {
        guard turns.source == 0, !turns.waitingForBus, !turns.order.isEmpty else { return }
        // At the priority GDBus hands calls over at: each pass of the loop
        // reads what came in and runs one round.
        turns.source = g_idle_add_full(G_PRIORITY_DEFAULT, { me in
            guard let me else { return 0 }
            return Unmanaged<ServiceBus>.fromOpaque(me).takeUnretainedValue().takeTurns() ? 1 : 0
        }, Unmanaged.passUnretained(self).toOpaque(), nil)
    }

    /// One round. Always false (its source ends): `pump` schedules the
    /// next once the bus has taken this one's answers.
    private func takeTurns() -> Bool {
        let started = g_get_monotonic_time()
        var answers: [(OpaquePointer, Reply)] = []
        turns.isTaking = true
        let signalsBefore = turns.outgoing.count
        service.beginGroup()
        var position = 0
        while answers.count < Self.roundCalls, !turns.order.isEmpty, g_get_monotonic_time() - started < Self.roundMicros {
            if position >= turns.order.count { position = 0 }
            let sender = turns.order[position]
            guard let call = turns.queues[sender]?.removeFirst() else {
                turns.order.remove(at: position)
                continue
            }
            answers.append((call.invocation, execute(call.method, call.invocation)))
            if turns.queues[sender]?.isEmpty ?? true {
                turns.queues[sender] = nil
                turns.order.remove(at: position)
            } else {
                position += 1
            }
        }
        // The next round starts with the caller whose turn came next.
        if position > 0 && position < turns.order.count {
            turns.order = Array(turns.order[position...] + turns.order[..<position])
        }
        let failure = service.endGroup()
        turns.isTaking = false
        for (invocation, reply) in answers {
            if let failure, case .values(let values) = reply {
                if let values { g_variant_unref(g_variant_ref_sink(values)) }
                answer(invocation, .error(failure))
            } else {
                answer(invocation, reply)
            }
        }
        turns.source = 0
        if let failure {
            for dropped in turns.outgoing.cut(keeping: signalsBefore) { g_variant_unref(dropped.arguments) }
            onLost(failure.message)
            return false
        }
        afterCall()
        pump(answered: !answers.isEmpty)
        return false
    }

    /// Sends the next batch of signals, then waits until the bus daemon has
    /// routed it (and a round's answers, if `answered`) before the next
    /// batch or round. With nothing sent, the next round may run at once.
    func pump(answered: Bool = false) {
        guard !turns.waitingForBus, !turns.isTaking, connection != nil else { return }
        guard sendSignals(Self.roundCalls) > 0 || answered else {
            scheduleRound()
            return
        }
        turns.waitingForBus = true
        afterBusRoundTrip { [unowned self] in
            turns.waitingForBus = false
            pump()
        }
    }

    /// Calls `then` once the bus daemon answers a `GetId` sent now (or the
    /// call fails: the bus gone, a timeout), which it does only after it has
    /// routed everything this connection sent before, and which GDBus hands
    /// over after everything the daemon sent us before the answer.
    func afterBusRoundTrip(_ then: @escaping () -> Void) {
        final class Box {
            let then: () -> Void
            init(_ then: @escaping () -> Void) { self.then = then }
        }
        guard let connection else { return then() }
        g_dbus_connection_call(
            connection, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetId", nil, nil,
            G_DBUS_CALL_FLAGS_NONE, 10_000, nil, { source, result, box in
                if let reply = g_dbus_connection_call_finish(OpaquePointer(source), result, nil) { g_variant_unref(reply) }
                guard let box else { return }
                Unmanaged<Box>.fromOpaque(box).takeRetainedValue().then()
            }, Unmanaged.passRetained(Box(then)).toOpaque())
    }

    /// Sends up to `limit` queued signals, in order, each to the
    /// subscribers who may see its timer; how many messages that was.
    @discardableResult
    func sendSignals(_ limit: Int) -> Int {
        var sent = 0
        while sent < limit, let (signal, arguments, owner) = turns.outgoing.removeFirst() {
            if let connection {
                for destination in audience(of: owner) {
                    g_dbus_connection_emit_signal(connection, destination, Self.path, Self.interface, signal, arguments, nil)
                    sent += 1
                }
            }
            g_variant_unref(arguments)
        }
        return sent
    }

    /// Answers every waiting call with `reason` (the service is stopping).
    func refuseWaiting(_ reason: String) {
        if turns.source != 0 { g_source_remove(turns.source) }
        turns.source = 0
        for sender in turns.order {
            while let call = turns.queues[sender]?.removeFirst() {
                answer(call.invocation, .error(ServiceError(.failed, reason)))
            }
        }
        (turns.queues, turns.order) = ([:], [])
    }
}
