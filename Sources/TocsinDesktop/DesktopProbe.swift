import CNotify
import Glibc
import TocsinBase

/// What a notification server says about itself.
public struct NotificationServer: Sendable, Hashable {
    public var name: String
    public var vendor: String
    public var version: String
    public var specVersion: String
    public var capabilities: [String]
}

/// Fast checks of the desktop session, each bounded in time, so that a
/// missing or frozen desktop is reported in well under a second instead of
/// libnotify's 25-second D-Bus timeout.
enum DesktopProbe {
    static let callTimeoutMilliseconds: Int32 = 1000

    /// The session bus address, or why there is none. GLib would otherwise
    /// try X11 autolaunch, which can start a stray bus.
    static func sessionBus() -> Result<String, TocsinNotifyFailure> {
        if let address = getenv("DBUS_SESSION_BUS_ADDRESS").map({ String(cString: $0) }), !address.isEmpty {
            return .success(address)
        }
        if let runtime = getenv("XDG_RUNTIME_DIR").map({ String(cString: $0) }) {
            var info = stat()
            let path = runtime + "/bus"
            if stat(path, &info) == 0 && (info.st_mode & mode_t(S_IFMT)) == mode_t(S_IFSOCK) {  // Int32 macros in Embedded Swift
                return .success("unix:path=" + path)
            }
        }
        return .failure(TocsinNotifyFailure(.unavailable, "no session bus: DBUS_SESSION_BUS_ADDRESS is not set"))
    }

    /// Asks the notification server for its name and capabilities, waiting
    /// at most a second for each answer.
    static func notificationServer() -> Result<NotificationServer, TocsinNotifyFailure> {
        if case .failure(let failure) = sessionBus() { return .failure(failure) }
        var error: UnsafeMutablePointer<GError>?
        guard let connection = g_bus_get_sync(G_BUS_TYPE_SESSION, nil, &error) else {
            return .failure(TocsinNotifyFailure(.unavailable, "no session bus: \(consume(&error))"))
        }
        defer { g_object_unref(UnsafeMutableRawPointer(connection)) }
        guard let info = call(connection, "GetServerInformation", replyType: "(ssss)", &error) else {
            return .failure(TocsinNotifyFailure(.unavailable, "no notification server: \(consume(&error))"))
        }
        defer { g_variant_unref(info) }
        let strings = (0..<4).map { string(info, $0) }
        var capabilities: [String] = []
        if let reply = call(connection, "GetCapabilities", replyType: "(as)", &error) {
            let list = g_variant_get_child_value(reply, 0)
            for index in 0..<Int(g_variant_n_children(list)) {
                capabilities.append(string(list, index))
            }
            g_variant_unref(list)
            g_variant_unref(reply)
        } else {
            _ = consume(&error)
        }
        return .success(NotificationServer(
            name: strings[0], vendor: strings[1], version: strings[2], specVersion: strings[3],
            capabilities: capabilities))
    }

    private static func call(
        _ connection: OpaquePointer, _ method: String, replyType: String,
        _ error: inout UnsafeMutablePointer<GError>?
    ) -> OpaquePointer? {
        // The type's C string must live through the call, not only through
        // tocsin_variant_type's (an implicit conversion's pointer dies with it).
        replyType.withCString { type in
            g_dbus_connection_call_sync(
                connection, "org.freedesktop.Notifications", "/org/freedesktop/Notifications",
                "org.freedesktop.Notifications", method, nil, tocsin_variant_type(type),
                G_DBUS_CALL_FLAGS_NONE, callTimeoutMilliseconds, nil, &error)
        }
    }

    private static func string(_ variant: OpaquePointer?, _ index: Int) -> String {
        let child = g_variant_get_child_value(variant, gsize(index))
        defer { g_variant_unref(child) }
        return String(cString: g_variant_get_string(child, nil))
    }

    /// A sound theme event id's file, as the freedesktop sound theme spec
    /// finds it (for diagnosis; libcanberra does its own lookup).
    static func soundFile(for id: String) -> String? {
        let dataDirs = (getenv("XDG_DATA_DIRS").map { String(cString: $0) } ?? "")
            .parts(at: UInt8(ascii: ":"))
        let dirs = (dataDirs.isEmpty ? ["/usr/local/share", "/usr/share"] : dataDirs)
        for dir in dirs {
            for ext in ["oga", "ogg", "wav"] {
                let path = "\(dir)/sounds/freedesktop/stereo/\(id).\(ext)"
                if access(path, R_OK) == 0 { return path }
            }
        }
        return nil
    }
}

/// A GError's message; frees it and clears the pointer.
func consume(_ error: inout UnsafeMutablePointer<GError>?) -> String {
    guard let pointer = error else { return "unknown error" }
    let message = String(cString: pointer.pointee.message)
    g_error_free(pointer)
    error = nil
    return message
}
