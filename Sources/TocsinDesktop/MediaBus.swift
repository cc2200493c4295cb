import CNotify
import TocsinBase

/// The media players (MPRIS: `org.mpris.MediaPlayer2.*`) on the session
/// bus, as `MediaPauser` and `MediaFader` speak to them: synchronous calls,
/// each waiting at most half a second (a frozen player cannot hold the
/// notifier's GLib thread for long). GLib thread only; made for one
/// round of calls (`withSession`), never kept.
struct MediaBus {
    private let connection: OpaquePointer
    private static let prefix = "org.mpris.MediaPlayer2."
    private static let path = "/org/mpris/MediaPlayer2"
    private static let player = "org.mpris.MediaPlayer2.Player"
    /// Milliseconds a call waits for its answer.
    private static let timeout: Int32 = 500

    /// Runs `body` with the session bus, if there is one (else not at all).
    static func withSession(_ body: (MediaBus) -> Void) {
        guard case .success = DesktopProbe.sessionBus(), let connection = g_bus_get_sync(G_BUS_TYPE_SESSION, nil, nil) else { return }
        defer { g_object_unref(UnsafeMutableRawPointer(connection)) }
        body(MediaBus(connection: connection))
    }

    /// The players on the bus, each once (by its owner's unique name: one
    /// player may own several names), without playerctld (a proxy of the
    /// others).
    func players() -> [String] {
        guard let reply = request("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                  "ListNames", nil, "(as)") else { return [] }
        defer { g_variant_unref(reply) }
        let names = g_variant_get_child_value(reply, 0)
        defer { g_variant_unref(names) }
        var owners: [String] = []
        for index in 0..<Int(g_variant_n_children(names)) {
            let child = g_variant_get_child_value(names, gsize(index))
            let name = String(cString: g_variant_get_string(child, nil))
            g_variant_unref(child)
            guard name.utf8.starts(with: Self.prefix.utf8), !name.isSame(as: Self.prefix + "playerctld"),
                  let owner = request("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                      "GetNameOwner", Self.tuple([g_variant_new_string(name)]), "(s)")
            else { continue }
            let unique = Self.string(owner)
            g_variant_unref(owner)
            if !owners.containsSame(unique) { owners.append(unique) }
        }
        return owners
    }

    /// "Playing", "Paused" or "Stopped"; nil if the player does not answer.
    func status(of player: String) -> String? {
        guard let value = property("PlaybackStatus", of: player, type: "s") else { return nil }
        defer { g_variant_unref(value) }
        return String(cString: g_variant_get_string(value, nil))
    }

    /// The player's volume (MPRIS: 0.0 silent, 1.0 full; some go above);
    /// nil if it has none or does not answer.
    func volume(of player: String) -> Double? {
        guard let value = property("Volume", of: player, type: "d") else { return nil }
        defer { g_variant_unref(value) }
        return g_variant_get_double(value)
    }

    /// Sets the player's volume; false if it refused or did not answer
    /// (a read-only Volume, CanControl false).
    @discardableResult
    func setVolume(_ volume: Double, of player: String) -> Bool {
        let arguments = Self.tuple([g_variant_new_string(Self.player), g_variant_new_string("Volume"),
                                    g_variant_new_variant(g_variant_new_double(volume))])
        guard let reply = request(player, Self.path, "org.freedesktop.DBus.Properties", "Set", arguments, "()") else { return false }
        g_variant_unref(reply)
        return true
    }

    /// Calls `method` ("Pause", "Stop", "Play") of the player; false if it
    /// failed or did not answer.
    func call(_ player: String, _ method: String) -> Bool {
        guard let reply = request(player, Self.path, Self.player, method, nil, "()") else { return false }
        g_variant_unref(reply)
        return true
    }

    /// The player's property `name` if it is of `type` (the caller unrefs it).
    private func property(_ name: String, of player: String, type: String) -> OpaquePointer? {
        guard let reply = request(player, Self.path, "org.freedesktop.DBus.Properties", "Get",
                                  Self.tuple([g_variant_new_string(Self.player), g_variant_new_string(name)]), "(v)")
        else { return nil }
        defer { g_variant_unref(reply) }
        let boxed = g_variant_get_child_value(reply, 0)
        defer { g_variant_unref(boxed) }
        guard let value = g_variant_get_variant(boxed) else { return nil }
        let fits = type.withCString { g_variant_is_of_type(value, tocsin_variant_type($0)) != 0 }
        if !fits { g_variant_unref(value) }
        return fits ? value : nil
    }

    private func request(_ destination: String, _ path: String, _ interface: String,
                         _ method: String, _ parameters: OpaquePointer?, _ replyType: String) -> OpaquePointer? {
        var error: UnsafeMutablePointer<GError>?
        let reply = replyType.withCString { type in
            g_dbus_connection_call_sync(connection, destination, path, interface, method, parameters,
                                        tocsin_variant_type(type), G_DBUS_CALL_FLAGS_NONE, Self.timeout, nil, &error)
        }
        if reply == nil { _ = consume(&error) }
        return reply
    }

    /// A tuple of `children` (floating, as they are: the call takes it).
    private static func tuple(_ children: [OpaquePointer?]) -> OpaquePointer? {
        var children = children
        return children.withUnsafeMutableBufferPointer { g_variant_new_tuple($0.baseAddress, gsize($0.count)) }
    }

    private static func string(_ tuple: OpaquePointer) -> String {
        let child = g_variant_get_child_value(tuple, 0)
        defer { g_variant_unref(child) }
        return String(cString: g_variant_get_string(child, nil))
    }
}
