import CGio
import Glibc

/// Who hears the signals (docs/dbus.md, Signals): each signal is sent to
/// every subscriber allowed to see its timer (the user: all; a sandboxed
/// app: its own), addressed to it, never broadcast, so that an app that
/// adds a match rule, or a proxy that passes broadcasts on, hears nothing of
/// the others' timers.
///
/// A client subscribes with `Subscribe` (or `Watch`) and stays subscribed
/// until it leaves the bus. Subscribers outlive the service: their unique
/// names are kept in `$XDG_RUNTIME_DIR/tocsin/subscribers-BUSID` (a unique
/// name is never reused on one bus), and a service that starts again takes
/// back those still connected before it announces anything, so a finish
/// that came while it was down reaches them.
extension ServiceBus {
    /// Subscribes `sender` (who is `caller`) until it leaves the bus.
    func subscribe(_ sender: String, as caller: Caller) {
        guard let connection, subscribers[sender] == nil else { return }
        let me = Unmanaged.passUnretained(self).toOpaque()
        let watch = g_bus_watch_name_on_connection(
            connection, sender, G_BUS_NAME_WATCHER_FLAGS_NONE, nil,
            { _, name, me in  // vanished
                guard let name, let me else { return }
                let bus = Unmanaged<ServiceBus>.fromOpaque(me).takeUnretainedValue()
                guard let gone = bus.subscribers.removeValue(forKey: String(cString: name)) else { return }
                g_bus_unwatch_name(gone.watch)
                bus.saveSubscribers()
            }, me, nil)
        subscribers[sender] = (caller, watch)
        saveSubscribers()
    }

    /// The subscribers that may hear of a timer owned by `owner` (nil: the
    /// user's), in a fixed order.
    func audience(of owner: String?) -> [String] {
        subscribers.filter { $0.value.caller.owns(owner) }.keys.sorted()
    }

    /// Takes back the subscribers of an earlier run on this bus that are
    /// still connected, each identified afresh. Synchronous: called once
    /// the name is ours, before anything is announced.
    func readoptSubscribers() {
        guard let path = subscribersPath(), let file = fopen(path, "r") else { return }
        var names: [String] = []
        var line: UnsafeMutablePointer<CChar>?
        var capacity = 0
        while getline(&line, &capacity, file) > 0, let line {
            let name = String(cString: line).trimmingSuffix("\n")
            if name.hasPrefix(":") && names.count < Self.maxSubscribers { names.append(name) }
        }
        free(line)
        fclose(file)
        for name in names {
            // Gone from the bus (or not the user's any more): not taken back.
            guard let caller = try? caller(named: name) else { continue }
            subscribe(name, as: caller)
        }
        saveSubscribers()
    }

    /// The most subscribers kept across a restart (a bound on the file read).
    static let maxSubscribers = 10_000

    /// Writes the subscribers' names (atomically: a new file renamed over
    /// the old). Best effort: without the file, a restart loses them.
    func saveSubscribers() {
        guard let path = subscribersPath() else { return }
        let text = subscribers.keys.sorted().map { $0 + "\n" }.joined()
        let temporary = path + ".new"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return }
        let written = text.utf8CString.withUnsafeBufferPointer { write(fd, $0.baseAddress, $0.count - 1) }
        Glibc.close(fd)
        if written == text.utf8.count { rename(temporary, path) } else { unlink(temporary) }
    }

    /// `$XDG_RUNTIME_DIR/tocsin/subscribers-BUSID` (the folder made, 0700);
    /// nil without a runtime folder or a bus id.
    private func subscribersPath() -> String? {
        guard let runtime = getenv("XDG_RUNTIME_DIR").map({ String(cString: $0) }), runtime.hasPrefix("/"),
              let busID = busID()
        else { return nil }
        let folder = runtime + "/tocsin"
        if mkdir(folder, 0o700) != 0 && errno != EEXIST { return nil }
        return folder + "/subscribers-" + busID
    }

    /// The bus's id (`GetId`), asked once.
    private func busID() -> String? {
        if let known = knownBusID { return known }
        guard let connection else { return nil }
        let reply = g_dbus_connection_call_sync(
            connection, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetId", nil, nil,
            G_DBUS_CALL_FLAGS_NONE, 5_000, nil, nil)
        guard let reply else { return nil }
        defer { g_variant_unref(reply) }
        let value = g_variant_get_child_value(reply, 0)!
        defer { g_variant_unref(value) }
        let id = String(cString: g_variant_get_string(value, nil))
        // Hex digits only (it names a file).
        guard !id.isEmpty, id.utf8.allSatisfy({ ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) }) else { return nil }
        knownBusID = id
        return id
    }
}

private extension String {
    func trimmingSuffix(_ suffix: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) : self
    }
}
