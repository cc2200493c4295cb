import CNotify
import TocsinBase

/// The media players (MPRIS: `org.mpris.MediaPlayer2.*`) on the session
/// bus, as `MediaPauser` and `MediaFader` speak to them: synchronous calls,
/// each waiting at most half a second (a frozen player cannot hold the
/// notifier's GLib thread for long). GLib thread only; made for one
/// round of calls (`session()`), never kept: it holds the connection.
///
/// Its calls are `@inline(never)`: each is a D-Bus round trip, and inlined
/// into each caller they would cost the Embedded notifier library
/// kilobytes for nothing.
final class MediaBus {
    private let connection: OpaquePointer
    private static let prefix = "org.mpris.MediaPlayer2."
    private static let path: StaticString = "/org/mpris/MediaPlayer2"
    private static let player: StaticString = "org.mpris.MediaPlayer2.Player"
    private static let properties: StaticString = "org.freedesktop.DBus.Properties"
    /// Milliseconds a call waits for its answer.
    private static let timeout: Int32 = 500

    private init(connection: OpaquePointer) {
        self.connection = connection
    }

    deinit {
        g_object_unref(UnsafeMutableRawPointer(connection))
    }

    /// The session bus, if there is one. (Not a closure taking it: each
    /// caller's would cost the Embedded library a copy of the function.)
    static func session() -> MediaBus? {
        guard case .success = DesktopProbe.sessionBus(), let connection = g_bus_get_sync(G_BUS_TYPE_SESSION, nil, nil) else { return nil }
        return MediaBus(connection: connection)
    }

    /// The players on the bus, each once (by its owner's unique name: one
    /// player may own several names), without playerctld (a proxy of the
    /// others).
    @inline(never)
    func players() -> [String] {
        guard let reply = request(nil, "/org/freedesktop/DBus", "org.freedesktop.DBus", "ListNames", nil, "(as)")
        else { return [] }
        defer { g_variant_unref(reply) }
        let names = g_variant_get_child_value(reply, 0)
        defer { g_variant_unref(names) }
        var owners: [String] = []
        for index in 0..<Int(g_variant_n_children(names)) {
            let child = g_variant_get_child_value(names, gsize(index))
            let name = String(cString: g_variant_get_string(child, nil))
            g_variant_unref(child)
            guard name.utf8.starts(with: Self.prefix.utf8), !name.isSame(as: Self.prefix + "playerctld"),
                  let owner = request(nil, "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetNameOwner",
                                      Self.tuple([g_variant_new_string(name)]), "(s)")
            else { continue }
            let unique = Self.string(owner)
            g_variant_unref(owner)
            if !owners.containsSame(unique) { owners.append(unique) }
        }
        return owners
    }

    /// "Playing", "Paused" or "Stopped"; nil if the player does not answer.
    @inline(never)
    func status(of player: String) -> String? {
        guard let value = property("PlaybackStatus", of: player, type: "s") else { return nil }
        defer { g_variant_unref(value) }
        return String(cString: g_variant_get_string(value, nil))
    }

    /// The player's volume (MPRIS: 0.0 silent, 1.0 full; some go above);
    /// nil if it has none or does not answer.
    @inline(never)
    func volume(of player: String) -> Double? {
        guard let value = property("Volume", of: player, type: "d") else { return nil }
        defer { g_variant_unref(value) }
        return g_variant_get_double(value)
    }

    /// Sets the player's volume; false if it refused or did not answer
    /// (a read-only Volume, CanControl false).
    @discardableResult @inline(never)
    func setVolume(_ volume: Double, of player: String) -> Bool {
        let arguments = Self.tuple([g_variant_new_string(Self.chars(Self.player)), g_variant_new_string("Volume"),
                                    g_variant_new_variant(g_variant_new_double(volume))])
        guard let reply = request(player, Self.path, Self.properties, "Set", arguments, "()") else { return false }
        g_variant_unref(reply)
        return true
    }

    /// Calls `method` ("Pause", "Stop", "Play") of the player; false if it
    /// failed or did not answer.
    @inline(never)
    func call(_ player: String, _ method: StaticString) -> Bool {
        guard let reply = request(player, Self.path, Self.player, method, nil, "()") else { return false }
        g_variant_unref(reply)
        return true
    }

    /// The player's property `name` if it is of `type` (the caller unrefs it).
    @inline(never)
    private func property(_ name: StaticString, of player: String, type: StaticString) -> OpaquePointer? {
        guard let reply = request(player, Self.path, Self.properties, "Get",
                                  Self.tuple([g_variant_new_string(Self.chars(Self.player)), g_variant_new_string(Self.chars(name))]), "(v)")
        else { return nil }
        defer { g_variant_unref(reply) }
        let boxed = g_variant_get_child_value(reply, 0)
        defer { g_variant_unref(boxed) }
        guard let value = g_variant_get_variant(boxed) else { return nil }
        let fits = g_variant_is_of_type(value, tocsin_variant_type(Self.chars(type))) != 0
        if !fits { g_variant_unref(value) }
        return fits ? value : nil
    }

    /// A call to `destination` (nil: the bus daemon) answered with
    /// `replyType`, or nil. The names are static strings: a `String` would
    /// be bridged to C by code at each call (the Embedded library's bytes).
    @inline(never)
    private func request(_ destination: String?, _ path: StaticString, _ interface: StaticString, _ method: StaticString,
                         _ parameters: OpaquePointer?, _ replyType: StaticString) -> OpaquePointer? {
        var error: UnsafeMutablePointer<GError>?
        let reply = (destination ?? "org.freedesktop.DBus").withCString { destination in
            g_dbus_connection_call_sync(connection, destination, Self.chars(path), Self.chars(interface), Self.chars(method),
                                        parameters, tocsin_variant_type(Self.chars(replyType)), G_DBUS_CALL_FLAGS_NONE,
                                        Self.timeout, nil, &error)
        }
        if reply == nil { _ = consume(&error) }
        return reply
    }

    /// A static string's bytes as a C string (a literal's end in a NUL).
    private static func chars(_ text: StaticString) -> UnsafePointer<CChar> {
        UnsafeRawPointer(text.utf8Start).assumingMemoryBound(to: CChar.self)
    }

    /// A tuple of `children` (floating, as they are: the call takes it).
    @inline(never)
    private static func tuple(_ children: [OpaquePointer?]) -> OpaquePointer? {
        var children = children
        return children.withUnsafeMutableBufferPointer { g_variant_new_tuple($0.baseAddress, gsize($0.count)) }
    }

    @inline(never)
    private static func string(_ tuple: OpaquePointer) -> String {
        let child = g_variant_get_child_value(tuple, 0)
        defer { g_variant_unref(child) }
        return String(cString: g_variant_get_string(child, nil))
    }
}
