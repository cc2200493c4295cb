import CGio
import Glibc

/// Whether the session bus can start the service, and what to do when it
/// cannot: the first thing a user who installed into a prefix of their
/// own meets (`make install PREFIX=/opt/tocsin`), and `tocsin doctor`'s
/// service lines.
extension ServiceClient {
    /// The D-Bus error of a name no activation file provides.
    static let serviceUnknown = "org.freedesktop.DBus.Error.ServiceUnknown"

    /// Where this command's own install put the activation file:
    /// `PREFIX/share/dbus-1/services/dev.tocsin.Timers.service`, `PREFIX`
    /// being the folder above the executable's `bin`.
    package static var installedActivationFile: String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        let executable = String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let parts = executable.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count >= 3, parts[parts.count - 2] == "bin" else { return nil }
        let prefix = parts.dropLast(2).joined(separator: "/")
        return "\(prefix)/share/dbus-1/services/\(ServiceBus.name).service"
    }

    /// What to do when the bus cannot start the service.
    package static var activationAdvice: String {
        guard let file = installedActivationFile, access(file, R_OK) == 0 else {
            return "install it with make install (or make install-service PREFIX=...), which puts it in "
                + "PREFIX/share/dbus-1/services"
        }
        let prefix = file.split(separator: "/", omittingEmptySubsequences: false).dropLast(4).joined(separator: "/")
        return "this tocsin's service file is \(file), in a folder this session's bus does not search: "
            + "run \(prefix)/bin/tocsin service --enable (it links the file into ~/.local/share, which every session "
            + "bus searches), or add \(prefix)/share to XDG_DATA_DIRS and log in again (share/doc/tocsin/dbus.md)"
    }

    /// `tocsin service --enable`: links this install's activation file (and
    /// systemd user unit, where there is one) into the user's own data
    /// folder, which every session bus and systemd search, and has both
    /// look again. Returns what it did, a line each.
    /// - Throws: `Failure` naming what is missing or could not be made.
    package static func enableUserActivation() throws(Failure) -> [String] {
        guard let links = userActivationLinks() else {
            throw Failure(name: "Failed", message: "no service file beside this tocsin: " + activationAdvice)
        }
        var done: [String] = []
        for (source, link) in links where access(source, R_OK) == 0 {
            var path = ""
            for part in link.split(separator: "/").dropLast() {
                path += "/" + part
                _ = mkdir(path, 0o755)
            }
            _ = unlink(link)  // an older link (another install): replaced
            guard symlink(source, link) == 0 else {
                throw Failure(name: "Failed", message: "cannot link \(link): \(String(cString: strerror(errno)))")
            }
            done.append("linked \(link) -> \(source)")
        }
        return done + rereadUserActivation()
    }

    /// `tocsin service --disable`: undoes `--enable` for this install: removes
    /// the links in the user's data folder that point at its files (a link
    /// to another install is left), and has the bus and systemd look again.
    /// The service's timers stay in their file. Returns what it did.
    package static func disableUserActivation() throws(Failure) -> [String] {
        guard let links = userActivationLinks() else {
            throw Failure(name: "Failed", message: "no service file beside this tocsin: nothing of this install to disable")
        }
        var done: [String] = []
        for (source, link) in links {
            var buffer = [CChar](repeating: 0, count: 4096)
            let count = readlink(link, &buffer, buffer.count - 1)
            guard count > 0 else { continue }
            let target = String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            guard target == source else {
                done.append("left \(link): it is another install's (\(target))")
                continue
            }
            guard unlink(link) == 0 else {
                throw Failure(name: "Failed", message: "cannot remove \(link): \(String(cString: strerror(errno)))")
            }
            done.append("removed \(link)")
        }
        if done.isEmpty { return ["nothing to disable: no link to this install's service in ~/.local/share"] }
        return done + rereadUserActivation()
    }

    /// This install's activation file and systemd unit, each with the link
    /// `--enable` makes to it in the folder the bus and systemd search:
    /// `$XDG_DATA_HOME`, else the home folder the password database gives (as
    /// dbus-daemon takes it), not `$HOME`. Nil without an install beside
    /// this executable.
    private static func userActivationLinks() -> [(source: String, link: String)]? {
        guard let file = installedActivationFile, access(file, R_OK) == 0 else { return nil }
        let prefix = file.split(separator: "/", omittingEmptySubsequences: false).dropLast(4).joined(separator: "/")
        let data = getenv("XDG_DATA_HOME").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 }
            ?? (getpwuid(getuid()).flatMap { $0.pointee.pw_dir }.map { String(cString: $0) } ?? "") + "/.local/share"
        return [(file, data + "/dbus-1/services/\(ServiceBus.name).service"),
                (prefix + "/share/systemd/user/tocsin.service", data + "/systemd/user/tocsin.service")]
    }

    /// Has the session bus and systemd --user read their folders again.
    private static func rereadUserActivation() -> [String] {
        var done: [String] = []
        if let client = try? ServiceClient(), let reply = client.busCall("ReloadConfig", nil) {
            g_variant_unref(reply)
            done.append("the session bus has read its service folders again")
        }
        if access("/run/user/\(getuid())/systemd", F_OK) == 0, system("systemctl --user daemon-reload 2>/dev/null") == 0 {
            done.append("systemd --user has read its units again")
        }
        return done
    }

    /// The message for a call the bus could not route to the service.
    static func notActivatable(_ detail: String) -> String {
        "the session bus cannot start the timer service (no \(ServiceBus.name).service in the folders it searches): "
            + activationAdvice
    }

    /// True if the bus can start the service on demand.
    package func isActivatable() -> Bool {
        guard let reply = busCall("ListActivatableNames", nil) else { return false }
        defer { g_variant_unref(reply) }
        let names = g_variant_get_child_value(reply, 0)!
        defer { g_variant_unref(names) }
        return (0..<Int(g_variant_n_children(names))).contains { index in
            let name = g_variant_get_child_value(names, gsize(index))!
            defer { g_variant_unref(name) }
            return String(cString: g_variant_get_string(name, nil)) == ServiceBus.name
        }
    }

    /// The process id of the running service, if one runs.
    package func runningService() -> UInt32? {
        guard let reply = busCall("GetConnectionUnixProcessID", g_variant_new_tuple([g_variant_new_string(ServiceBus.name)], 1))
        else { return nil }
        defer { g_variant_unref(reply) }
        let pid = g_variant_get_child_value(reply, 0)!
        defer { g_variant_unref(pid) }
        return UInt32(g_variant_get_uint32(pid))
    }

    /// Whether a user manager of `version` fails every user unit that asks
    /// for ambient capabilities (status 218/CAPABILITIES), as systemd 255 and
    /// 256 do: their systemd-executor starts without the manager's
    /// capabilities (systemd #33167; fixed in 257 by PR #32937).
    package static func refusesAmbientCapabilities(version: String) -> Bool {
        let major = Int(version.prefix { $0.isNumber }) ?? 0
        return major == 255 || major == 256
    }
}
