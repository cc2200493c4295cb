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
    /// The most subscribers at once (each signal is one message to each),
    /// and the most one sandboxed app has; past them `Subscribe` and `Watch`
    /// fail with `LimitReached`.
    static let maxSubscribers = 256
    static let maxSubscribersPerApp = 16

    /// Subscribes `sender` (who is `caller`) until it leaves the bus.
    /// - Throws: `.limitReached` past `maxSubscribers` or `maxSubscribersPerApp`.
    func subscribe(_ sender: String, as caller: Caller) throws(ServiceError) {
        guard let connection, subscribers[sender] == nil else { return }
        guard subscribers.count < Self.maxSubscribers else {
            throw ServiceError(.limitReached, "the service has \(Self.maxSubscribers) subscribers, its most: "
                + "a client that has left the bus makes room")
        }
        if let app = caller.app, subscribers.values.count(where: { $0.caller.app == app }) >= Self.maxSubscribersPerApp {
            throw ServiceError(.limitReached, "\(app) has \(Self.maxSubscribersPerApp) connections subscribed, an app's most")
        }
        let me = Unmanaged.passUnretained(self).toOpaque()
        let watch = g_bus_watch_name_on_connection(
            connection, sender, G_BUS_NAME_WATCHER_FLAGS_NONE, nil,
            { _, name, me in  // vanished
                guard let name, let me else { return }
                let bus = Unmanaged<ServiceBus>.fromOpaque(me).takeUnretainedValue()
                guard let gone = bus.subscribers.removeValue(forKey: String(cString: name)) else { return }
                g_bus_unwatch_name(gone.watch)
                bus.saveSubscribersSoon()
            }, me, nil)
        subscribers[sender] = (caller, watch)
        saveSubscribersSoon()
    }

    /// The subscribers that may hear of a timer owned by `owner` (nil: the
    /// user's), in a fixed order.
    func audience(of owner: String?) -> [String] {
        subscribers.filter { $0.value.caller.owns(owner) }.keys.sorted()
    }

    /// Takes back the subscribers of an earlier run on this bus that are
    /// still connected, each identified afresh, then calls `then`: once the
    /// name is ours, before anything is announced. Asynchronous (the bus's
    /// id, then each one's credentials, a few at a time); the file is
    /// written once at the end.
    func readoptSubscribers(then: @escaping () -> Void) {
        askBusID { [unowned self] in
            guard let path = subscribersPath() else { return then() }
            var names = Queue<String>()
            for name in Self.readNames(path, limit: Self.maxSubscribers) { names.append(name) }
            var (pending, done) = (0, false)
            func more() {
                while pending < 16, let name = names.removeFirst() {
                    pending += 1
                    identify(name) { [unowned self] result in  // (at once for one already known)
                        pending -= 1
                        // Gone from the bus (or not the user's any more): not taken back.
                        if case .success(let caller) = result { try? subscribe(name, as: caller) }
                        more()
                    }
                }
                if pending == 0 && names.isEmpty && !done {
                    done = true
                    writeSubscribers()
                    then()
                }
            }
            more()
        }
    }

    /// The unique names in the file (at most `limit`).
    private static func readNames(_ path: String, limit: Int) -> [String] {
        guard let file = fopen(path, "r") else { return [] }
        defer { fclose(file) }
        var names: [String] = []
        var line: UnsafeMutablePointer<CChar>?
        var capacity = 0
        while names.count < limit, getline(&line, &capacity, file) > 0, let line {
            var name = String(cString: line)
            if name.hasSuffix("\n") { name.removeLast() }
            if name.hasPrefix(":") && name.utf8.count < 256 { names.append(name) }
        }
        free(line)
        return names
    }

    /// Writes the file once the loop is idle: a burst of subscribers is one write.
    func saveSubscribersSoon() {
        subscribersSave.schedule()
    }

    /// Writes the subscribers' names (atomically: a new file renamed over
    /// the old). Best effort: without the file, a restart loses them.
    func writeSubscribers() {
        subscribersSave.cancel()
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
              let busID = knownBusID
        else { return nil }
        let folder = runtime + "/tocsin"
        if mkdir(folder, 0o700) != 0 && errno != EEXIST { return nil }
        return folder + "/subscribers-" + busID
    }

    /// Asks the bus its id (`GetId`), asynchronously, once; then `then`.
    private func askBusID(then: @escaping () -> Void) {
        guard knownBusID == nil, let connection else { return then() }
        callAsync(connection, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetId",
                  timeout: 5_000) { [unowned self] reply in
            if let value = reply.value.flatMap({ g_variant_get_child_value($0, 0) }) {
                let id = String(cString: g_variant_get_string(value, nil))
                g_variant_unref(value)
                // Hex digits only (it names a file).
                if !id.isEmpty, id.utf8.allSatisfy({ ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) }) { knownBusID = id }
            }
            then()
        }
    }
}
