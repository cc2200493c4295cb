import CGio

/// Work for the service's main loop once it is idle, asked for any number of
/// times before it runs and run once (a burst of calls or events asks
/// once). Main-loop thread only.
final class IdleWork {
    private let priority: Int32
    private let work: () -> Void
    private var source: guint = 0

    /// `work` captures its owner unowned: the owner keeps this, and the
    /// source goes with it.
    init(priority: Int32 = G_PRIORITY_DEFAULT, _ work: @escaping () -> Void) {
        self.priority = priority
        self.work = work
    }

    deinit { cancel() }

    var isScheduled: Bool { source != 0 }

    func schedule() {
        guard source == 0 else { return }
        source = g_idle_add_full(priority, { raw in
            let idle = Unmanaged<IdleWork>.fromOpaque(raw.unsafelyUnwrapped).takeUnretainedValue()
            idle.source = 0
            idle.work()
            return 0  // G_SOURCE_REMOVE
        }, Unmanaged.passUnretained(self).toOpaque(), nil)
    }

    func cancel() {
        if source != 0 { g_source_remove(source) }
        source = 0
    }
}

/// Calls a method on the bus without waiting: `then` gets the reply (or
/// nil and the error's message) on the thread's main loop, `timeout` ms at
/// most after.
func callAsync(_ connection: OpaquePointer, _ destination: String, _ path: String, _ interface: String, _ method: String,
               _ parameters: OpaquePointer? = nil, flags: GDBusCallFlags = G_DBUS_CALL_FLAGS_NONE, timeout: Int32,
               then: @escaping (GVariantReply) -> Void) {
    final class Box {
        let then: (GVariantReply) -> Void
        init(_ then: @escaping (GVariantReply) -> Void) { self.then = then }
    }
    g_dbus_connection_call(
        connection, destination, path, interface, method, parameters, nil, flags, timeout, nil, { source, result, box in
            var error: UnsafeMutablePointer<GError>?
            let reply = g_dbus_connection_call_finish(OpaquePointer(source), result, &error)
            let message = error.map { String(cString: $0.pointee.message) }
            if let error { g_error_free(error) }
            Unmanaged<Box>.fromOpaque(box.unsafelyUnwrapped).takeRetainedValue().then(GVariantReply(reply, message))
        }, Unmanaged.passRetained(Box(then)).toOpaque())
}

/// A method call's reply (owned: released when this goes) or its error.
final class GVariantReply {
    let value: OpaquePointer?
    let error: String?

    init(_ value: OpaquePointer?, _ error: String?) {
        self.value = value
        self.error = error
    }

    deinit { if let value { g_variant_unref(value) } }
}
