import CNotify
import TocsinBase

/// Pauses the media players (MPRIS: `org.mpris.MediaPlayer2.*` on the
/// session bus) that are playing when an alarm starts to ring, and resumes
/// those, and only those, once no alarm rings any more (Stop, Snooze,
/// dismissal, the ring's end). A player the person paused, stopped or
/// closed meanwhile is left as it is. GLib thread only; each call to a
/// player waits at most half a second (a frozen player cannot hold alerts up
/// for long).
final class MediaPauser {
    /// The alarms ringing now (a key more than once if it rang again before
    /// its last ring was over).
    private var ringing: [AlertKey] = []
    /// The unique bus names of the players this paused.
    private var paused: [String] = []
    private static let prefix = "org.mpris.MediaPlayer2."
    private static let timeout: Int32 = 500

    func ring(_ key: AlertKey, started: Bool) {
        let before = ringing.isEmpty
        if started {
            ringing.append(key)
        } else if let index = ringing.firstIndex(of: key) {
            ringing.remove(at: index)
        }
        if before && !ringing.isEmpty { pausePlaying() }
        if !before && ringing.isEmpty { resumePaused() }
    }

    private func pausePlaying() {
        withBus { connection in
            for player in players(connection) where status(of: player, connection)?.isSame(as: "Playing") == true {
                if call(connection, player, "Pause") { paused.append(player) }
            }
        }
    }

    private func resumePaused() {
        let players = paused
        paused = []
        withBus { connection in
            for player in players where status(of: player, connection)?.isSame(as: "Paused") == true {
                _ = call(connection, player, "Play")
            }
        }
    }

    private func withBus(_ body: (OpaquePointer) -> Void) {
        guard case .success = DesktopProbe.sessionBus(), let connection = g_bus_get_sync(G_BUS_TYPE_SESSION, nil, nil) else { return }
        defer { g_object_unref(UnsafeMutableRawPointer(connection)) }
        body(connection)
    }

    /// The players on the bus, each once (by its owner's unique name: one
    /// player may own several names), without playerctld (a proxy of the
    /// others).
    private func players(_ connection: OpaquePointer) -> [String] {
        guard let reply = request(connection, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
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
                  let owner = request(connection, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                      "GetNameOwner", Self.strings([name]), "(s)")
            else { continue }
            let unique = Self.string(owner)
            g_variant_unref(owner)
            if !owners.containsSame(unique) { owners.append(unique) }
        }
        return owners
    }

    /// "Playing", "Paused" or "Stopped"; nil if the player does not answer.
    private func status(of player: String, _ connection: OpaquePointer) -> String? {
        guard let reply = request(connection, player, "/org/mpris/MediaPlayer2", "org.freedesktop.DBus.Properties", "Get",
                                  Self.strings(["org.mpris.MediaPlayer2.Player", "PlaybackStatus"]), "(v)")
        else { return nil }
        defer { g_variant_unref(reply) }
        let boxed = g_variant_get_child_value(reply, 0)
        defer { g_variant_unref(boxed) }
        let value = g_variant_get_variant(boxed)
        defer { g_variant_unref(value) }
        return g_variant_is_of_type(value, tocsin_variant_type("s")) != 0 ? String(cString: g_variant_get_string(value, nil)) : nil
    }

    private func call(_ connection: OpaquePointer, _ player: String, _ method: String) -> Bool {
        guard let reply = request(connection, player, "/org/mpris/MediaPlayer2", "org.mpris.MediaPlayer2.Player", method,
                                  nil, "()") else { return false }
        g_variant_unref(reply)
        return true
    }

    private func request(_ connection: OpaquePointer, _ destination: String, _ path: String, _ interface: String,
                         _ method: String, _ parameters: OpaquePointer?, _ replyType: String) -> OpaquePointer? {
        var error: UnsafeMutablePointer<GError>?
        let reply = replyType.withCString { type in
            g_dbus_connection_call_sync(connection, destination, path, interface, method, parameters,
                                        tocsin_variant_type(type), G_DBUS_CALL_FLAGS_NONE, Self.timeout, nil, &error)
        }
        if reply == nil { _ = consume(&error) }
        return reply
    }

    /// A tuple of strings (floating: the call takes it).
    private static func strings(_ values: [String]) -> OpaquePointer? {
        var children = values.map { g_variant_new_string($0) }
        return children.withUnsafeMutableBufferPointer { g_variant_new_tuple($0.baseAddress, gsize($0.count)) }
    }

    private static func string(_ tuple: OpaquePointer) -> String {
        let child = g_variant_get_child_value(tuple, 0)
        defer { g_variant_unref(child) }
        return String(cString: g_variant_get_string(child, nil))
    }
}
