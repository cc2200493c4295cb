import Glibc

/// Who makes a call: the user (any program of the service's own user that
/// is not sandboxed: the command, a script, a desktop app) or a sandboxed
/// app, named by the `[Application] name=` of the `/.flatpak-info` in its
/// root (what Flatpak puts there, and what xdg-desktop-portal reads). An
/// app sees and controls only the timers it made; the user sees all.
package struct Caller: Equatable, Sendable {
    /// The sandboxed app's id; nil: the user.
    package var app: String?

    package static let user = Caller(app: nil)

    package init(app: String?) {
        self.app = app
    }

    /// True if this caller may see and control a timer owned by `owner`
    /// (nil: the user's).
    package func owns(_ owner: String?) -> Bool {
        app == nil || app == owner
    }

    /// The caller behind process `pid` of user `uid`, as the bus vouches
    /// for them (`GetConnectionCredentials`).
    /// - Throws: `.notPermitted` for another user's program, or a process
    ///   in a sandbox whose app cannot be named.
    package static func identify(uid: UInt32, pid: UInt32, serviceUID: UInt32 = getuid()) throws(ServiceError) -> Caller {
        guard uid == serviceUID else {
            throw ServiceError(.notPermitted, "the timer service of user \(serviceUID) takes no calls from user \(uid)")
        }
        let path = "/proc/\(pid)/root/.flatpak-info"
        guard let file = fopen(path, "r") else {
            // No such file: not sandboxed. Any other failure (the root
            // cannot be looked into) is refused: it might be a sandbox.
            if errno == ENOENT { return .user }
            throw ServiceError(.notPermitted, "cannot tell whether process \(pid) is sandboxed: \(String(cString: strerror(errno)))")
        }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while bytes.count < 65536, case let count = fread(&buffer, 1, buffer.count, file), count > 0 { bytes += buffer[..<count] }
        guard let app = appID(inFlatpakInfo: String(decoding: bytes, as: UTF8.self)) else {
            throw ServiceError(.notPermitted, "a sandboxed caller without an app id (its /.flatpak-info names none)")
        }
        return Caller(app: app)
    }

    /// The `name=` of the `[Application]` group of a keyfile; nil if none.
    package static func appID(inFlatpakInfo text: String) -> String? {
        var group = ""
        for line in text.split(whereSeparator: \.isNewline) {
            let trimmed = line.drop(while: \.isWhitespace)
            if trimmed.hasPrefix("[") {
                group = String(trimmed)
            } else if group == "[Application]", trimmed.hasPrefix("name=") {
                let name = String(trimmed.dropFirst(5).drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
                return name.isEmpty || name.utf8.count > 255 ? nil : name
            }
        }
        return nil
    }
}
