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

    /// Whose turn a call is (`FairQueues`): the user's, or one app's.
    var identity: String { app.map { "app " + $0 } ?? "user" }

    /// True if this caller may see and control a timer owned by `owner`
    /// (nil: the user's).
    package func owns(_ owner: String?) -> Bool {
        app == nil || app == owner
    }

    /// The caller behind process `pid` of user `uid`, as the bus vouches
    /// for them (`GetConnectionCredentials`).
    ///
    /// The process is held by its `/proc/PID` folder while its root is read:
    /// if it ends meanwhile and another takes its pid, lookups in the folder
    /// fail rather than read the newcomer's root. (A bus that gives a pidfd,
    /// `ProcessFD`, would close the last gap, a pid reused before the
    /// folder is opened while a child of the caller keeps its connection;
    /// Debian 12's dbus-daemon gives none.)
    /// - Throws: `.notPermitted` for another user's program, a process in
    ///   a sandbox whose app cannot be named, or one that has ended.
    package static func identify(uid: UInt32, pid: UInt32, serviceUID: UInt32 = getuid()) throws(ServiceError) -> Caller {
        guard uid == serviceUID else {
            throw ServiceError(.notPermitted, "the timer service of user \(serviceUID) takes no calls from user \(uid)")
        }
        let ended = ServiceError(.notPermitted, "process \(pid), which called, has ended: it cannot be told apart")
        let folder = open("/proc/\(pid)", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard folder >= 0 else { throw ended }
        defer { close(folder) }
        // Not blocking, not following a link, and only a regular file: the
        // caller's root is the caller's to make (a FIFO there would hold
        // the service's one thread in open()).
        let info = openat(folder, "root/.flatpak-info", O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW)
        let failure = errno
        guard info >= 0 else {
            // No such file: not sandboxed, if it is still the same process.
            // Any other failure (the root cannot be looked into) is refused:
            // it might be a sandbox.
            guard faccessat(folder, "stat", F_OK, 0) == 0 else { throw ended }
            if failure == ENOENT { return .user }
            throw ServiceError(.notPermitted, "cannot tell whether process \(pid) is sandboxed: \(String(cString: strerror(failure)))")
        }
        var status = stat()
        guard fstat(info, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            close(info)
            throw ServiceError(.notPermitted, "process \(pid)'s /.flatpak-info is not a regular file: it cannot be told apart")
        }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while bytes.count < 65536, case let count = read(info, &buffer, buffer.count), count > 0 { bytes += buffer[..<count] }
        close(info)
        guard faccessat(folder, "stat", F_OK, 0) == 0 else { throw ended }
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
