import CGio

/// Callers take turns (docs/dbus.md, Fairness): a client that sends calls
/// as fast as it can does not hold up another's.
///
/// A call that changes something waits in its queue (`FairQueues`: by
/// caller identity, the user or each sandboxed app, then by connection), and
/// rounds run them one identity in turn, at most `roundCalls` calls or
/// `roundMicros` of work a round, then sync the journal once for the whole
/// round and only then answer them (nothing is acknowledged that is not on
/// disk). Between rounds the main loop reads what came in, so a `List` or
/// `ListColumns` from a connection with nothing waiting is answered at once,
/// from saved state, up to `readsBetweenRounds` per identity: a poller at
/// full speed then waits its turn like anyone. Each connection's own calls
/// still run, and are answered, in the order sent.
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
    /// The most calls a round runs, and signals a batch sends: with 64 the
    /// other client's p99 under a 12,000-Add flood was 103–231 ms in five
    /// runs, with 128 123–318, with 256 236–306 (bench/flood.c), at about
    /// the same number of Adds a second.
    static let roundCalls = 64
    /// The most work a round does (µs) before it syncs and answers.
    static let roundMicros: Int64 = 10_000
    /// Reads of one identity answered at once between two rounds; more wait
    /// their turn.
    static let readsBetweenRounds = 8

    /// A call waiting its turn.
    struct Waiting {
        let method: String
        let invocation: OpaquePointer
        let caller: Caller
    }

    /// The queues and the round's state.
    struct Turns {
        var queues = FairQueues<Waiting>()
        /// Reads answered at once since the last round, by identity.
        var readsNow: [String: Int] = [:]
        /// The main loop's source that runs rounds; 0 when none is due.
        var source: guint = 0
        /// True from sending answers or signals until the bus daemon has
        /// routed them.
        var waitingForBus = false
        /// True while a round runs: its signals wait for its answers.
        var isTaking = false
        /// True until the subscribers of the last run are taken back
        /// (`readoptSubscribers`): a change made before would tell them nothing.
        var held = true
        /// Signals not sent yet, in order (name, arguments held, and the
        /// owner of the timer they are about: nil for the user's).
        var outgoing = Queue<(signal: String, arguments: OpaquePointer, owner: String?)>()
        /// Signals queued so far, and those the bus daemon has routed.
        var signalsQueued = 0
        var signalsRouted = 0
        /// What waits for the signals queued before it to be routed, with
        /// `signalsQueued` then (`afterSignalsSent`).
        var afterRouted = Queue<(through: Int, then: () -> Void)>()
    }

    /// A call of a known caller (`ServiceBus+Callers`): answered now if it
    /// only reads, its connection has nothing waiting and its identity has
    /// had fewer than `readsBetweenRounds` such answers since the last
    /// round; else queued for the next round.
    func route(_ method: String, _ invocation: OpaquePointer, sender: String, caller: Caller) {
        let identity = caller.identity
        if Self.access(of: method)?.onlyReads == true, !turns.queues.hasWaiting(identity, sender),
           turns.readsNow[identity, default: 0] < Self.readsBetweenRounds {
            turns.readsNow[identity, default: 0] += 1
            answer(invocation, execute(method, invocation, as: caller))
            afterCall()
            if turns.readsNow[identity] == Self.readsBetweenRounds { scheduleRound() }  // (to reset the count)
            return
        }
        turns.queues.append(Waiting(method: method, invocation: invocation, caller: caller), identity: identity, connection: sender)
        scheduleRound()
    }

    /// Rounds may run from now on (the subscribers are back).
    func releaseTurns() {
        turns.held = false
        scheduleRound()
    }

    /// Runs a round soon, unless one is due, the last one's answers are
    /// still being sent, or rounds are held.
    private func scheduleRound() {
        guard turns.source == 0, !turns.waitingForBus, !turns.held, !turns.queues.isEmpty || !turns.readsNow.isEmpty else { return }
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
        turns.readsNow = [:]
        let signalsBefore = turns.outgoing.count
        service.beginGroup()
        while answers.count < Self.roundCalls, g_get_monotonic_time() - started < Self.roundMicros,
              let call = turns.queues.next() {
            answers.append((call.invocation, execute(call.method, call.invocation, as: call.caller)))
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
            let dropped = turns.outgoing.cut(keeping: signalsBefore)
            for signal in dropped { g_variant_unref(signal.arguments) }
            turns.signalsQueued -= dropped.count
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
    /// Rounds and batches of signals alternate while both wait: a backlog
    /// of signals (1,000 rings to 256 subscribers) does not hold up calls.
    func pump(answered: Bool = false) {
        guard !turns.waitingForBus, !turns.isTaking, connection != nil else { return }
        let sent = sendSignals(Self.roundCalls)
        let through = turns.signalsQueued - turns.outgoing.count
        guard sent > 0 || answered else {
            signalsRouted(through: through)  // (those taken now went to nobody; earlier ones were confirmed)
            scheduleRound()
            return
        }
        turns.waitingForBus = true
        afterBusRoundTrip { [unowned self] in
            turns.waitingForBus = false
            signalsRouted(through: through)
            if !answered && !turns.queues.isEmpty {
                scheduleRound()  // the calls' turn (the round's end sends the next batch)
            } else {
                pump()
            }
            afterCall()  // (the service may be idle now)
        }
    }

    /// Calls `then` once the bus daemon answers a `GetId` sent now (or the
    /// call fails: the bus gone, a timeout), which it does only after it has
    /// routed everything this connection sent before, and which GDBus hands
    /// over after everything the daemon sent us before the answer.
    func afterBusRoundTrip(_ then: @escaping () -> Void) {
        guard let connection else { return then() }
        callAsync(connection, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetId",
                  timeout: 10_000) { _ in then() }
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

    /// Runs `then` once the signals queued so far have been routed by the
    /// bus daemon (at once if none waits, or there is no bus to send them
    /// on). Never waits: the loop goes on meanwhile.
    func afterSignalsSent(_ then: @escaping () -> Void) {
        guard connection != nil, turns.signalsQueued > turns.signalsRouted else { return then() }
        turns.afterRouted.append((turns.signalsQueued, then))
        if !turns.isTaking { pump() }
    }

    /// The signals up to number `through` have been routed: what waited for them runs.
    private func signalsRouted(through: Int) {
        turns.signalsRouted = max(turns.signalsRouted, through)
        var ready: [() -> Void] = []
        while let first = turns.afterRouted.removeFirst() {
            guard first.through <= turns.signalsRouted else {
                // (Later ones wait for later signals: put it back in front.)
                var rest = Queue<(through: Int, then: () -> Void)>()
                rest.append(first)
                while let other = turns.afterRouted.removeFirst() { rest.append(other) }
                turns.afterRouted = rest
                break
            }
            ready.append(first.then)
        }
        for then in ready { then() }
    }

    /// Answers every waiting call with `reason` (the service is stopping);
    /// what waited for signals to be routed is dropped (a finish not yet
    /// shown stays due to be announced: the next start announces it).
    func refuseWaiting(_ reason: String) {
        if turns.source != 0 { g_source_remove(turns.source) }
        turns.source = 0
        for call in turns.queues.removeAll() {
            answer(call.invocation, .error(ServiceError(.failed, reason)))
        }
        for (_, var calls) in awaitingIdentity {
            while let call = calls.removeFirst() { answer(call.invocation, .error(ServiceError(.failed, reason))) }
        }
        awaitingIdentity = [:]
        turns.afterRouted = Queue()
    }
}
