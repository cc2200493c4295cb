import CGio

/// Who calls: each connection's credentials, asked of the bus once and
/// kept until it leaves (docs/dbus.md, Callers).
extension ServiceBus {
    /// The methods whose first argument is a timer's id: a sandboxed
    /// caller may name only its own.
    static let timerMethods: Set = ["Pause", "Resume", "Cancel", "Restart", "Remove", "Adjust", "Snooze", "Lap", "Skip", "SkipUntil"]

    /// Who sent `invocation`: asked of the bus once per connection
    /// (`GetConnectionCredentials`: its user and process) and kept until it
    /// leaves the bus, so a later process, with a new connection, is
    /// identified afresh however its pid was reused.
    func caller(of invocation: OpaquePointer) throws(ServiceError) -> Caller {
        guard connection != nil, let raw = g_dbus_method_invocation_get_sender(invocation) else { return .user }
        return try caller(named: String(cString: raw))
    }

    /// Who the connection `sender` (a unique name) is: asked of the bus the
    /// first time (a synchronous call), then kept until it leaves the bus.
    /// - Throws: `.notPermitted` if the bus cannot say (it has left) or
    ///   `Caller.identify` refuses it.
    func caller(named sender: String) throws(ServiceError) -> Caller {
        guard let connection else { return .user }
        if let known = callers[sender] { return known.caller }
        var error: UnsafeMutablePointer<GError>?
        let reply = g_dbus_connection_call_sync(
            connection, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetConnectionCredentials",
            Variant.tuple([g_variant_new_string(sender)]), nil, G_DBUS_CALL_FLAGS_NONE, 5_000, nil, &error)
        if let error {
            defer { g_error_free(error) }
            throw ServiceError(.notPermitted, "the bus cannot say who called: \(String(cString: error.pointee.message))")
        }
        guard let reply else { throw ServiceError(.notPermitted, "the bus cannot say who called") }
        defer { g_variant_unref(reply) }
        let credentials = g_variant_get_child_value(reply, 0)!
        defer { g_variant_unref(credentials) }
        let numbers = Variant.unsignedNumbers(credentials)
        let (uid, pid) = (numbers["UnixUserID"], numbers["ProcessID"])
        guard let uid, let pid else { throw ServiceError(.notPermitted, "the bus does not say which user and process called") }
        let caller = try Caller.identify(uid: uid, pid: pid)
        let me = Unmanaged.passUnretained(self).toOpaque()
        let watch = g_bus_watch_name_on_connection(
            connection, sender, G_BUS_NAME_WATCHER_FLAGS_NONE, nil,
            { _, name, me in  // vanished: forgotten
                guard let name, let me else { return }
                let bus = Unmanaged<ServiceBus>.fromOpaque(me).takeUnretainedValue()
                if let known = bus.callers.removeValue(forKey: String(cString: name)) { g_bus_unwatch_name(known.watch) }
            }, me, nil)
        callers[sender] = (caller, watch)
        return caller
    }
}
