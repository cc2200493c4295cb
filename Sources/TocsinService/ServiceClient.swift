import CGio
import Glibc

/// A client of the timer service, for the command: synchronous calls on the
/// session bus (the first one starts the service by D-Bus activation).
///
/// Not thread-safe: one per thread.
package final class ServiceClient {
    /// A failed call: the D-Bus error's name (e.g.
    /// `dev.tocsin.Timers1.Error.NoSuchTimer`) and its message.
    package struct Failure: Error, CustomStringConvertible {
        package var name: String
        package var message: String
        package var description: String { message }
        /// No session bus to talk to.
        package var isNoBus: Bool { name == "NoBus" }
    }

    /// One timer as `List` gives it.
    package typealias Timer = ServiceTimer

    let connection: OpaquePointer

    /// Connects to the session bus.
    package init() throws(Failure) {
        var error: UnsafeMutablePointer<GError>?
        guard getenv("DBUS_SESSION_BUS_ADDRESS") != nil || getenv("XDG_RUNTIME_DIR") != nil,
              let connection = g_bus_get_sync(G_BUS_TYPE_SESSION, nil, &error)
        else {
            if let error { g_error_free(error) }
            throw Failure(name: "NoBus", message: "no D-Bus session bus (is DBUS_SESSION_BUS_ADDRESS set?)")
        }
        self.connection = connection
    }

    deinit {
        g_object_unref(UnsafeMutableRawPointer(connection))
    }

    package func add(label: String, seconds: Double, options: [(String, ServiceValue)]) throws(Failure) -> UInt64 {
        let dictionary = Variant.dictionary(options)
        let reply = try call("Add", Variant.tuple([g_variant_new_string(label), g_variant_new_double(seconds), dictionary]))
        let id = g_variant_get_child_value(reply, 0)!
        defer { g_variant_unref(id); g_variant_unref(reply) }
        return UInt64(g_variant_get_uint64(id))
    }

    /// Skips the next `count` rings of calendar alarm `id` (0: undoes a skip).
    package func skip(_ id: UInt64, count: UInt32) throws(Failure) {
        g_variant_unref(try call("Skip", Variant.tuple([g_variant_new_uint64(guint64(id)), g_variant_new_uint32(count)])))
    }

    /// Skips every ring of calendar alarm `id` before `unixSeconds`.
    package func skip(_ id: UInt64, until unixSeconds: Double) throws(Failure) {
        g_variant_unref(try call("SkipUntil", Variant.tuple([g_variant_new_uint64(guint64(id)), g_variant_new_double(unixSeconds)])))
    }

    /// Pause, Resume, Cancel, Restart, Remove; Adjust with `delta`; Lap
    /// (returns the lap's length).
    @discardableResult
    package func control(_ method: String, _ id: UInt64, delta: Double? = nil) throws(Failure) -> Double? {
        var arguments = [g_variant_new_uint64(guint64(id))]
        if let delta { arguments.append(g_variant_new_double(delta)) }
        let reply = try call(method, Variant.tuple(arguments))
        defer { g_variant_unref(reply) }
        guard g_variant_n_children(reply) > 0, let value = g_variant_get_child_value(reply, 0) else { return nil }
        defer { g_variant_unref(value) }
        return g_variant_get_double(value)
    }

    /// Every timer, oldest first: `ListColumns`, or `List` from a service
    /// older than 0.8 (one started before an upgrade). `columns`: only
    /// these properties (and `id`) are read; none: all of them.
    package func list(columns: [String] = []) throws(Failure) -> [Timer] {
        let names = columns.isEmpty || columns.contains("id") ? columns : ["id"] + columns
        let reply: OpaquePointer
        do {
            let strings = names.map { strdup($0) }
            defer { strings.forEach { free($0) } }
            let array = strings.map { UnsafePointer($0) }
            reply = try array.withUnsafeBufferPointer { buffer throws(Failure) in
                try call("ListColumns", Variant.tuple([g_variant_new_strv(buffer.baseAddress, gssize(buffer.count))]))
            }
        } catch where error.name == Self.unknownMethod {
            return try listDictionaries()
        }
        defer { g_variant_unref(reply) }
        return try Self.timers(inColumns: reply)
    }

    /// The timers of a `ListColumns` reply.
    static func timers(inColumns reply: OpaquePointer) throws(Failure) -> [Timer] {
        let columns = g_variant_get_child_value(reply, 0)!
        defer { g_variant_unref(columns) }
        guard let table = Variant.table(columns) else {
            throw Failure(name: "Failed", message: "the service's ListColumns reply is malformed")
        }
        return ServiceTimer.timers(in: table)
    }

    static let unknownMethod = "org.freedesktop.DBus.Error.UnknownMethod"

    func listDictionaries() throws(Failure) -> [Timer] {
        let reply = try call("List", nil)
        defer { g_variant_unref(reply) }
        let items = g_variant_get_child_value(reply, 0)!
        defer { g_variant_unref(items) }
        return (0..<Int(g_variant_n_children(items))).map { index in
            let item = g_variant_get_child_value(items, gsize(index))!
            defer { g_variant_unref(item) }
            return Self.timer(item)
        }
    }

    /// What `follow` reports.
    package enum Change {
        case changed(Timer)
        /// `finish` numbers the timer's finishes; `again`: it may have been
        /// reported before (the service restarted in between).
        case finished(id: UInt64, label: String, lateness: Double, finish: UInt64, again: Bool)
        case removed(id: UInt64)
    }

    /// Asks the service to stay up while this client is connected (`tocsin
    /// watch`, `ls --follow`); a service without the method is no failure.
    package func watch() {
        if let reply = try? call("Watch", nil) { g_variant_unref(reply) }
    }

    /// Calls `handler` for each signal of the service (of any process that
    /// owns its name, across restarts) from `follow()` on: asks for them
    /// with `Subscribe` (the service sends its signals only to those who
    /// did). Subscribe before `list()`: the service has the subscription
    /// before it answers the list, so no change falls between the two.
    package func subscribe(_ handler: @escaping (Change) -> Void) {
        defer {
            // A service of 0.8.0 or before has no Subscribe and broadcasts.
            if let reply = try? call("Subscribe", nil) { g_variant_unref(reply) }
        }
        final class Box {
            let handler: (Change) -> Void
            init(_ handler: @escaping (Change) -> Void) { self.handler = handler }
        }
        let box = Unmanaged.passRetained(Box(handler)).toOpaque()
        g_dbus_connection_signal_subscribe(
            connection, nil, ServiceBus.interface, nil, ServiceBus.path, nil, G_DBUS_SIGNAL_FLAGS_NONE,
            { _, _, _, _, signal, parameters, box in
                guard let signal, let parameters, let box else { return }
                let handler = Unmanaged<Box>.fromOpaque(box).takeUnretainedValue().handler
                let first = g_variant_get_child_value(parameters, 0)!
                defer { g_variant_unref(first) }
                let id = UInt64(g_variant_get_uint64(first))
                switch String(cString: signal) {
                case "Changed":
                    let properties = g_variant_get_child_value(parameters, 1)!
                    defer { g_variant_unref(properties) }
                    handler(.changed(ServiceClient.timer(properties)))
                case "FinishAnnounced":  // (sent with each Finished, and numbered)
                    let values = (1...4).map { g_variant_get_child_value(parameters, $0)! }
                    defer { values.forEach(g_variant_unref) }
                    handler(.finished(id: id, label: String(cString: g_variant_get_string(values[0], nil)),
                                      lateness: g_variant_get_double(values[1]), finish: UInt64(g_variant_get_uint64(values[2])),
                                      again: g_variant_get_boolean(values[3]) != 0))
                case "Removed":
                    handler(.removed(id: id))
                default:
                    break
                }
            }, box, nil)
    }

    /// Delivers the signals `subscribe` asked for, until the process is
    /// ended or its standard output's reader has gone (`quitsWhenOutputCloses`).
    package func follow() {
        let loop = g_main_loop_new(nil, 0)
        let watch = Self.quitsWhenOutputCloses(loop)
        g_main_loop_run(loop)
        g_source_remove(watch)
        g_main_loop_unref(loop)
    }

    /// Quits `loop` when standard output can never be written again: the
    /// reading end of its pipe or socket closed (`| head -1`, a status bar
    /// that exited or was restarted), or its terminal hung up. `poll` says so
    /// at once (POLLERR, POLLHUP), even while there is nothing to write, so a
    /// silent follower does not outlive its reader. A file never closes this
    /// way. The source's id, to remove once the loop has returned.
    static func quitsWhenOutputCloses(_ loop: OpaquePointer?) -> guint {
        g_unix_fd_add(STDOUT_FILENO, GIOCondition(G_IO_ERR.rawValue | G_IO_HUP.rawValue), { _, _, loop in
            g_main_loop_quit(OpaquePointer(loop))
            return 1  // G_SOURCE_CONTINUE: removed by the caller, once
        }, UnsafeMutableRawPointer(loop))
    }

    private func call(_ method: String, _ arguments: OpaquePointer?) throws(Failure) -> OpaquePointer {
        var error: UnsafeMutablePointer<GError>?
        guard let reply = g_dbus_connection_call_sync(
            connection, ServiceBus.name, ServiceBus.path, ServiceBus.interface, method, arguments, nil,
            G_DBUS_CALL_FLAGS_NONE, 25_000, nil, &error)
        else { throw Self.failure(method, error) }
        return reply
    }

    /// A failed call's `error` (freed) as a `Failure`.
    static func failure(_ method: String, _ error: UnsafeMutablePointer<GError>?) -> Failure {
        let name = g_dbus_error_get_remote_error(error).map { String(cString: $0) } ?? "Failed"
        if let error { g_dbus_error_strip_remote_error(error) }
        let message = error.map { String(cString: $0.pointee.message) } ?? "\(method) failed"
        if let error { g_error_free(error) }
        return Failure(name: name, message: name == serviceUnknown ? notActivatable(message) : message)
    }

    /// The service's `CanWake` property; nil if it cannot be read.
    package func canWake() -> Bool? {
        guard let value = property("CanWake", of: ServiceBus.interface, on: ServiceBus.name, at: ServiceBus.path, type: "b")
        else { return nil }
        defer { g_variant_unref(value) }
        return g_variant_get_boolean(value) != 0
    }

    /// The version the session's user manager (`systemd --user`) reports,
    /// such as "255.4-1ubuntu8"; nil without one on the bus. Never starts one.
    package func userManagerVersion() -> String? {
        guard let value = property("Version", of: "org.freedesktop.systemd1.Manager", on: "org.freedesktop.systemd1",
                                   at: "/org/freedesktop/systemd1", type: "s", flags: G_DBUS_CALL_FLAGS_NO_AUTO_START)
        else { return nil }
        defer { g_variant_unref(value) }
        return String(cString: g_variant_get_string(value, nil))
    }

    /// A D-Bus property's value if it is of `type` (the caller unrefs it);
    /// nil if it cannot be read.
    private func property(_ name: String, of interface: String, on destination: String, at path: String, type: String,
                          flags: GDBusCallFlags = G_DBUS_CALL_FLAGS_NONE) -> OpaquePointer? {
        var error: UnsafeMutablePointer<GError>?
        guard let reply = g_dbus_connection_call_sync(
            connection, destination, path, "org.freedesktop.DBus.Properties", "Get",
            Variant.tuple([g_variant_new_string(interface), g_variant_new_string(name)]), nil, flags, 5_000, nil, &error)
        else {
            if let error { g_error_free(error) }
            return nil
        }
        defer { g_variant_unref(reply) }
        guard let boxed = g_variant_get_child_value(reply, 0) else { return nil }
        defer { g_variant_unref(boxed) }
        guard let value = g_variant_get_variant(boxed) else { return nil }
        guard String(cString: g_variant_get_type_string(value)) == type else {
            g_variant_unref(value)
            return nil
        }
        return value
    }

    /// A call to the bus itself; nil if it failed.
    func busCall(_ method: String, _ arguments: OpaquePointer?) -> OpaquePointer? {
        var error: UnsafeMutablePointer<GError>?
        let reply = g_dbus_connection_call_sync(
            connection, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", method, arguments, nil,
            G_DBUS_CALL_FLAGS_NONE, 5_000, nil, &error)
        if let error { g_error_free(error) }
        return reply
    }

    /// An `a{sv}` as the service's values.
    static func timer(_ dictionary: OpaquePointer) -> Timer {
        var properties: [String: ServiceValue] = [:]
        for (name, _, value) in Variant.decode(dictionary) { properties[name] = value }
        return ServiceTimer(properties)
    }
}
