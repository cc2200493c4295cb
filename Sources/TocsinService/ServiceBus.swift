import CGio
import Glibc

/// The service on the session bus through GDBus: the name
/// `dev.tocsin.Timers`, the object `/dev/tocsin/Timers`, the interface
/// `dev.tocsin.Timers1` (share/dbus-1/interfaces/dev.tocsin.Timers1.xml,
/// which a test compares with what the running service introspects).
/// GDBus checks every call's argument types against the interface before
/// it gets here (else `org.freedesktop.DBus.Error.InvalidArgs`).
///
/// `@unchecked Sendable`: used on the service's main-loop thread only.
final class ServiceBus: @unchecked Sendable {
    static let name = "dev.tocsin.Timers"
    static let path = "/dev/tocsin/Timers"
    static let interface = "dev.tocsin.Timers1"

    let service: TimerService
    private let nodeInfo: UnsafeMutablePointer<GDBusNodeInfo>
    private let vtable: UnsafeMutablePointer<GDBusInterfaceVTable>
    /// The bus connection, referenced by us from the time GDBus hands it
    /// over until `close()`: GDBus drops its own when the name goes.
    private(set) var connection: OpaquePointer?
    private var ownerID: guint = 0
    /// The current call's arguments, released when it ends.
    var held: [OpaquePointer] = []
    /// Calls waiting their turn (`ServiceBus+Turns`).
    var turns = Turns()
    /// Called when the name cannot be had or is lost (with a reason).
    var onLost: (String) -> Void = { _ in }
    /// Called after every method call (the loop re-checks idleness).
    var afterCall: () -> Void = {}
    /// Called once the object is exported and the name is ours.
    var onReady: () -> Void = {}

    init(service: TimerService) {
        self.service = service
        nodeInfo = g_dbus_node_info_new_for_xml(Self.introspection, nil)
        vtable = .allocate(capacity: 1)
        vtable.initialize(to: GDBusInterfaceVTable())
        vtable.pointee.method_call = { _, _, _, _, method, _, invocation, me in
            guard let me, let method, let invocation else { return }
            Unmanaged<ServiceBus>.fromOpaque(me).takeUnretainedValue().receive(String(cString: method), invocation)
        }
        vtable.pointee.get_property = { _, _, _, _, property, _, me in
            guard let me, let property, String(cString: property) == "CanWake" else { return nil }
            return g_variant_new_boolean(Unmanaged<ServiceBus>.fromOpaque(me).takeUnretainedValue().service.canWake ? 1 : 0)
        }
        service.signals.changed = { [unowned self] id, properties in
            emit("Changed", of: id, [g_variant_new_uint64(guint64(id)), Variant.dictionary(properties)])
        }
        service.signals.finished = { [unowned self] id, label, lateness in
            emit("Finished", of: id, [g_variant_new_uint64(guint64(id)), g_variant_new_string(label), g_variant_new_double(lateness)])
        }
        service.signals.finishAnnounced = { [unowned self] id, label, lateness, finish, again in
            emit("FinishAnnounced", of: id,
                 [g_variant_new_uint64(guint64(id)), g_variant_new_string(label), g_variant_new_double(lateness),
                  g_variant_new_uint64(guint64(finish)), g_variant_new_boolean(again ? 1 : 0)])
        }
        service.signals.afterSent = { [unowned self] then in afterSignalsSent(then) }
        service.signals.removed = { [unowned self] id, owner in
            emit("Removed", owner: owner, [g_variant_new_uint64(guint64(id))])
        }
    }

    static let noSessionBus = "no D-Bus session bus (is DBUS_SESSION_BUS_ADDRESS set?)"

    /// Asks for the name on the session bus; `onLost` if that fails.
    func own() {
        let me = Unmanaged.passUnretained(self).toOpaque()
        ownerID = g_bus_own_name(
            G_BUS_TYPE_SESSION, Self.name, G_BUS_NAME_OWNER_FLAGS_DO_NOT_QUEUE,
            { connection, _, me in  // bus acquired: the object goes up before the name is ours
                guard let me else { return }
                Unmanaged<ServiceBus>.fromOpaque(me).takeUnretainedValue().register(on: connection)
            },
            { _, _, me in  // name acquired
                guard let me else { return }
                let bus = Unmanaged<ServiceBus>.fromOpaque(me).takeUnretainedValue()
                // The call that activated the service may be a client's
                // Subscribe (`tocsin ls --follow`), which must be in before
                // the first signal: the bus sent the calls it held once the
                // name became ours, so they come before this round trip
                // ends, and are in once their callers are known.
                bus.readoptSubscribers {
                    bus.releaseTurns()
                    bus.afterBusRoundTrip { bus.afterWaitingCallsRouted { bus.onReady() } }
                }
            },
            { connection, _, me in  // name lost, or never had
                guard let me else { return }
                let bus = Unmanaged<ServiceBus>.fromOpaque(me).takeUnretainedValue()
                let reason = switch (connection, bus.connection) {
                case (nil, nil): ServiceBus.noSessionBus
                case (nil, _): "the session bus went away"
                default: "\(ServiceBus.name) is owned by another process on this bus"
                }
                bus.onLost(reason)
            },
            me, nil)
    }

    /// Sends what is queued (the last signals), gives the name up and lets
    /// the connection go. Safe after the bus went away or the name was never had.
    func close() {
        refuseWaiting("the service is stopping: call again (D-Bus activation starts it)")
        flush()
        if ownerID != 0 { g_bus_unown_name(ownerID) }
        ownerID = 0
        for (_, id) in watchers { g_bus_unwatch_name(id) }
        watchers = [:]
        // (Their file stays: the next run takes them back.)
        if subscribersSave.isScheduled { writeSubscribers() }
        for (_, subscriber) in subscribers { g_bus_unwatch_name(subscriber.watch) }
        subscribers = [:]
        for (_, known) in callers { g_bus_unwatch_name(known.watch) }
        callers = [:]
        if let connection { g_object_unref(UnsafeMutableRawPointer(connection)) }
        connection = nil
    }

    /// Returns once what is queued (the signals too) has been written to
    /// the bus: only as the service stops (it waits on the bus daemon).
    private func flush() {
        sendSignals(.max)
        if let connection, g_dbus_connection_is_closed(connection) == 0 { g_dbus_connection_flush_sync(connection, nil, nil) }
    }

    private func register(on connection: OpaquePointer?) {
        guard let connection, let interfaceInfo = nodeInfo.pointee.interfaces?[0] else { return }
        if let held = self.connection { g_object_unref(UnsafeMutableRawPointer(held)) }
        g_object_ref(UnsafeMutableRawPointer(connection))
        self.connection = connection
        var error: UnsafeMutablePointer<GError>?
        let id = g_dbus_connection_register_object(
            connection, Self.path, interfaceInfo, vtable, Unmanaged.passUnretained(self).toOpaque(), nil, &error)
        if id == 0 {
            onLost("cannot export \(Self.path): \(error.map { String(cString: $0.pointee.message) } ?? "?")")
            g_error_free(error)
        }
    }

    // MARK: - Calls

    /// What a call is answered with: a tuple of values (floating), or an error.
    enum Reply {
        case values(OpaquePointer?)
        case error(ServiceError)
    }

    /// Sends `reply` to `invocation`'s caller (which consumes the invocation).
    func answer(_ invocation: OpaquePointer, _ reply: Reply) {
        switch reply {
        case .values(let values): g_dbus_method_invocation_return_value(invocation, values)
        case .error(let error): g_dbus_method_invocation_return_dbus_error(invocation, error.name, error.message)
        }
    }

    /// Callers by unique name, each with the watch that forgets it
    /// (`ServiceBus+Callers`).
    var callers: [String: (caller: Caller, watch: guint)] = [:]
    /// Calls of connections the bus has not said who they are yet, in the
    /// order sent (`ServiceBus+Callers`).
    var awaitingIdentity: [String: Queue<(method: String, invocation: OpaquePointer)>] = [:]
    /// What waits for some of those calls to be routed (`afterWaitingCallsRouted`).
    var routingWaiters: [(Set<String>, () -> Void)] = []
    /// Writes the subscribers' file once the loop is idle.
    lazy var subscribersSave = IdleWork(priority: G_PRIORITY_LOW) { [unowned self] in writeSubscribers() }

    /// Clients that hear the signals (`ServiceBus+Subscribers`), by unique
    /// name, each with who it is and the watch that forgets it.
    var subscribers: [String: (caller: Caller, watch: guint)] = [:]
    /// The bus's id, once asked (`ServiceBus+Subscribers`).
    var knownBusID: String?

    /// Clients that called `Watch` (by unique name), each with its name
    /// watch: the service stays up while any is connected.
    private var watchers: [String: guint] = [:]
    /// True while a client that called `Watch` is connected.
    var isWatched: Bool { !watchers.isEmpty }

    /// True while calls wait for their caller to be known or for their
    /// turn, or answers and signals for the bus: the service may not exit.
    var hasCallsUnderWay: Bool {
        !awaitingIdentity.isEmpty || !turns.queues.isEmpty || turns.source != 0 || turns.waitingForBus
            || !turns.outgoing.isEmpty
    }

    /// Keeps the service up until `sender` leaves the bus.
    func watch(_ sender: String) {
        guard let connection, watchers[sender] == nil else { return }
        let me = Unmanaged.passUnretained(self).toOpaque()
        watchers[sender] = g_bus_watch_name_on_connection(
            connection, sender, G_BUS_NAME_WATCHER_FLAGS_NONE, nil,
            { _, name, me in  // vanished
                guard let name, let me else { return }
                let bus = Unmanaged<ServiceBus>.fromOpaque(me).takeUnretainedValue()
                if let id = bus.watchers.removeValue(forKey: String(cString: name)) { g_bus_unwatch_name(id) }
                bus.afterCall()
            }, me, nil)
    }

    /// A call's argument `index` (a reference released when the call ends).
    func child(_ tuple: OpaquePointer, _ index: Int) -> OpaquePointer {
        let value = g_variant_get_child_value(tuple, gsize(index))!
        held.append(value)
        return value
    }

    /// Queues a signal about timer `id`, for those who may see it.
    private func emit(_ signal: String, of id: UInt64, _ values: [OpaquePointer?]) {
        emit(signal, owner: service.entries[id]?.owner, values)
    }

    /// Queues a signal about a timer of `owner` (nil: the user's);
    /// `ServiceBus+Turns` sends it (after the answers of the round that made
    /// it, and paced with them) to the subscribers who may see it.
    private func emit(_ signal: String, owner: String?, _ values: [OpaquePointer?]) {
        guard connection != nil, let arguments = Variant.tuple(values) else { return }
        turns.outgoing.append((signal, g_variant_ref_sink(arguments), owner))
        turns.signalsQueued += 1
        if !turns.isTaking { pump() }
    }
}
