import CGio

/// Who calls: each connection's credentials, asked of the bus once and
/// kept until it leaves (docs/dbus.md, Callers). The asking never waits: a
/// connection's calls wait in its own queue until the bus answers, while
/// the loop serves everyone else.
extension ServiceBus {
    /// The most calls a connection may have waiting for the bus to say who
    /// it is; more are refused (`LimitReached`).
    static let callsAwaitingIdentity = 10_000

    /// A call from the bus: routed (`ServiceBus+Turns`) once its caller is
    /// known. The first call of a connection asks the bus who it is
    /// (`GetConnectionCredentials`: its user and process), asynchronously;
    /// that connection's calls wait meanwhile, in order.
    func receive(_ method: String, _ invocation: OpaquePointer) {
        let sender = g_dbus_method_invocation_get_sender(invocation).map { String(cString: $0) } ?? ""
        if awaitingIdentity[sender] != nil {  // (first: its earlier calls go first, even if another asking made it known)
            guard awaitingIdentity[sender]!.count < Self.callsAwaitingIdentity else {
                return answer(invocation, .error(ServiceError(.limitReached,
                    "\(Self.callsAwaitingIdentity) calls wait already for the bus to say who sent them")))
            }
            awaitingIdentity[sender]!.append((method, invocation))
        } else if let known = callers[sender] {
            route(method, invocation, sender: sender, caller: known.caller)
        } else if connection == nil || sender.isEmpty {
            // (No bus to ask who it is: refused, as anyone who cannot be told apart.)
            answer(invocation, .error(ServiceError(.notPermitted, "the bus cannot say who called")))
        } else {
            var waiting = Queue<(method: String, invocation: OpaquePointer)>()
            waiting.append((method, invocation))
            awaitingIdentity[sender] = waiting
            identify(sender) { [unowned self] result in
                guard var waiting = awaitingIdentity.removeValue(forKey: sender) else { return }
                while let call = waiting.removeFirst() {
                    switch result {
                    case .success(let caller): route(call.method, call.invocation, sender: sender, caller: caller)
                    case .failure(let error): answer(call.invocation, .error(error))
                    }
                }
                identified(sender)
            }
        }
    }

    /// Runs `then` once the calls that wait now for their caller to be
    /// known have been routed (at once if none waits; later callers do not
    /// hold it up).
    func afterWaitingCallsRouted(_ then: @escaping () -> Void) {
        let senders = Set(awaitingIdentity.keys)
        guard !senders.isEmpty else { return then() }
        routingWaiters.append((senders, then))
    }

    private func identified(_ sender: String) {
        var ready: [() -> Void] = []
        routingWaiters = routingWaiters.compactMap { waiter in
            var (senders, then) = waiter
            senders.remove(sender)
            if senders.isEmpty { ready.append(then); return nil }
            return (senders, then)
        }
        for then in ready { then() }
    }

    /// Asks the bus who the connection `sender` (a unique name) is, and
    /// keeps the answer until it leaves the bus; `then` gets it (at once if
    /// known). Fails with `.notPermitted` if the bus cannot say (it has
    /// left) or `Caller.identify` refuses it.
    func identify(_ sender: String, then: @escaping (Result<Caller, ServiceError>) -> Void) {
        if let known = callers[sender] { return then(.success(known.caller)) }
        guard let connection else { return then(.failure(ServiceError(.notPermitted, "the bus cannot say who called"))) }
        callAsync(connection, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                  "GetConnectionCredentials", Variant.tuple([g_variant_new_string(sender)]), timeout: 5_000) { [unowned self] reply in
            then(adopt(sender, credentials: reply))
        }
    }

    /// The bus's answer about `sender`, made a caller (kept, with a watch
    /// that forgets it when it leaves the bus), or why not.
    private func adopt(_ sender: String, credentials reply: GVariantReply) -> Result<Caller, ServiceError> {
        if let known = callers[sender] { return .success(known.caller) }  // (asked twice meanwhile)
        guard let connection, let value = reply.value else {
            return .failure(ServiceError(.notPermitted, "the bus cannot say who called" + (reply.error.map { ": " + $0 } ?? "")))
        }
        let credentials = g_variant_get_child_value(value, 0)!
        defer { g_variant_unref(credentials) }
        let numbers = Variant.unsignedNumbers(credentials)
        guard let uid = numbers["UnixUserID"], let pid = numbers["ProcessID"] else {
            return .failure(ServiceError(.notPermitted, "the bus does not say which user and process called"))
        }
        let caller: Caller
        do throws(ServiceError) {
            caller = try Caller.identify(uid: uid, pid: pid)
        } catch {
            return .failure(error)
        }
        let me = Unmanaged.passUnretained(self).toOpaque()
        let watch = g_bus_watch_name_on_connection(
            connection, sender, G_BUS_NAME_WATCHER_FLAGS_NONE, nil,
            { _, name, me in  // vanished: forgotten
                guard let name, let me else { return }
                let bus = Unmanaged<ServiceBus>.fromOpaque(me).takeUnretainedValue()
                if let known = bus.callers.removeValue(forKey: String(cString: name)) { g_bus_unwatch_name(known.watch) }
            }, me, nil)
        callers[sender] = (caller, watch)
        return .success(caller)
    }
}
