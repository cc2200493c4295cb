import CGio

/// What a follower needs to list again without holding up its signals: a
/// list that does not wait, and word of the service coming back.
extension ServiceClient {
    /// `list()` without waiting: `done` gets the timers, or why not, from
    /// the main loop of this thread's default context once the answer has
    /// come. (A service older than 0.8 has no `ListColumns`: `List` then,
    /// waited for.)
    package func list(then done: @escaping (Result<[Timer], Failure>) -> Void) {
        final class Box {
            let client: ServiceClient
            let done: (Result<[Timer], Failure>) -> Void
            init(_ client: ServiceClient, _ done: @escaping (Result<[Timer], Failure>) -> Void) {
                (self.client, self.done) = (client, done)
            }
        }
        let box = Unmanaged.passRetained(Box(self, done)).toOpaque()
        g_dbus_connection_call(
            connection, ServiceBus.name, ServiceBus.path, ServiceBus.interface, "ListColumns",
            Variant.tuple([g_variant_new_strv(nil, 0)]), nil, G_DBUS_CALL_FLAGS_NONE, 25_000, nil,
            { source, result, raw in
                let box = Unmanaged<Box>.fromOpaque(raw.unsafelyUnwrapped).takeRetainedValue()
                var error: UnsafeMutablePointer<GError>?
                guard let reply = g_dbus_connection_call_finish(OpaquePointer(source), result, &error) else {
                    let failure = ServiceClient.failure("ListColumns", error)
                    guard failure.name == ServiceClient.unknownMethod else { return box.done(.failure(failure)) }
                    return box.done(Result { () throws(Failure) in try box.client.listDictionaries() })
                }
                defer { g_variant_unref(reply) }
                box.done(Result { () throws(Failure) in try ServiceClient.timers(inColumns: reply) })
            }, box)
    }

    /// Calls `handler` each time the service is on the bus again after it
    /// was gone (stopped, killed, exited idle), from `follow()` on; not when
    /// it is first started.
    package func onServiceBack(_ handler: @escaping () -> Void) {
        final class Box {
            let handler: () -> Void
            var wasGone = false
            init(_ handler: @escaping () -> Void) { self.handler = handler }
        }
        let box = Unmanaged.passRetained(Box(handler)).toOpaque()
        g_dbus_connection_signal_subscribe(
            connection, "org.freedesktop.DBus", "org.freedesktop.DBus", "NameOwnerChanged", "/org/freedesktop/DBus",
            ServiceBus.name, G_DBUS_SIGNAL_FLAGS_NONE,
            { _, _, _, _, _, parameters, raw in
                guard let parameters, let raw else { return }
                let box = Unmanaged<Box>.fromOpaque(raw).takeUnretainedValue()
                let newOwner = g_variant_get_child_value(parameters, 2)!
                defer { g_variant_unref(newOwner) }
                let gone = g_variant_get_string(newOwner, nil).pointee == 0
                if !gone, box.wasGone { box.handler() }
                box.wasGone = gone
            }, box, nil)
    }
}
