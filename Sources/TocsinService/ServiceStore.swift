import Glibc
import Tocsin
import TocsinBase

/// Where the service keeps its timers: `$XDG_STATE_HOME/tocsin/timers.json`
/// (`~/.local/state/tocsin/timers.json` by default), folder 0700, files 0600.
///
/// Two files: a snapshot of every timer (`timers.json`, replaced
/// atomically), and a journal beside it (`timers.journal`), one JSON line
/// per change since the snapshot, appended and fsynced before the change
/// is answered: a change costs one small write, not a rewrite of every
/// timer, and the calls of one round (`ServiceBus+Turns`) share one fsync.
/// Each line and the snapshot carry a change number, so a line the
/// snapshot already has is skipped (a crash between writing a snapshot and
/// emptying the journal). A line cut short by a crash is the last one; it
/// is ignored and cut off at the next start. Each timer's record wraps the
/// engine's timer file (see docs/timer-file.md) with what the service adds:
/// its id, kind, alert and sound, the timer it waits for, when it finished.
package final class ServiceStore: @unchecked Sendable {
    package let path: String
    /// The journal's path (beside the snapshot).
    var journalPath: String { beside(".journal") }
    private var journal: Int32 = -1

    package init(path: String) {
        self.path = path
    }

    deinit {
        if journal >= 0 { close(journal) }
        if lockFile >= 0 { close(lockFile) }
    }

    /// The lock's path (beside the snapshot).
    var lockPath: String { beside(".lock") }
    /// The snapshot's path with `suffix` in place of `.json`.
    private func beside(_ suffix: String) -> String { String(path.dropLast(path.hasSuffix(".json") ? 5 : 0)) + suffix }
    private var lockFile: Int32 = -1

    /// Takes the files' lock (`flock` on the `.lock` file beside them, held
    /// until the process ends, which frees it however it ends): two services
    /// on one state would each rewrite the files from their own timers and
    /// lose the other's (two session buses of one user, or a service started
    /// by hand beside the activated one). Waits up to `patience` ns for a
    /// service that is exiting to let go.
    /// - Returns: nil when it is taken, or when there is no lock to take (a
    ///   read-only folder, where nothing can be written anyway); else why not.
    func lock(patience: Int64 = 5 * Nanos.perSecond) -> String? {
        makeFolders()
        lockFile = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard lockFile >= 0 else { return nil }
        let deadline = Clocks.monotonic() + patience
        while flock(lockFile, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR else { return nil }
            guard Clocks.monotonic() < deadline else {
                var buffer = [UInt8](repeating: 0, count: 32)
                let count = buffer.withUnsafeMutableBytes { pread(lockFile, $0.baseAddress, $0.count, 0) }
                let holder = String(decoding: buffer.prefix(max(0, count)).filter { $0 >= 0x30 && $0 <= 0x39 }, as: UTF8.self)
                return "the timers in \(path) are kept by another tocsin service"
                    + (holder.isEmpty ? "" : " (pid \(holder))") + ": only one may run for them"
            }
            usleep(50_000)
        }
        let pid = Array("\(getpid())\n".utf8)
        if ftruncate(lockFile, 0) == 0 { _ = pid.withUnsafeBytes { pwrite(lockFile, $0.baseAddress, $0.count, 0) } }
        return nil
    }

    /// Lets go of the lock: the service is done writing (its last snapshot
    /// is written) and a new one may start while this one closes down.
    func unlock() {
        if lockFile >= 0 { close(lockFile) }
        lockFile = -1
    }

    /// Appends `lines` to the journal and syncs it, or with `sync` false
    /// leaves them for `syncJournal` (one fdatasync for a group of calls).
    /// On failure the journal is cut back to what it held before, so that
    /// no part of these lines stays to be read later (a partial line in the
    /// middle would make the whole journal unreadable).
    /// - Throws: the system's reason ("No space left on device").
    func append(_ lines: [JSON], sync: Bool = true) throws(StoreError) {
        if journal < 0 {
            if let failure = makeFolders() { throw failure }
            journal = open(journalPath, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
            guard journal >= 0 else { throw StoreError(errno: errno, path: journalPath) }
        }
        let before = lseek(journal, 0, SEEK_END)
        guard before >= 0 else { throw StoreError(errno: errno, path: journalPath) }
        var failure = Descriptor.write(lines.map { $0.compactEncoded() + "\n" }.joined(), to: journal)
        if failure == 0 && !sync {
            if unsyncedFrom == nil { unsyncedFrom = before }
            return
        }
        if failure == 0 {
            journalSyncs += 1
            if fdatasync(journal) != 0 { failure = errno }
        }
        if failure == 0 { unsyncedFrom = nil }
        guard failure != 0 else { return }
        if ftruncate(journal, before) != 0 {
            // The lines may stay in part, and a later append would follow
            // them: the service writes snapshots instead until one succeeds.
            damaged = true
        }
        throw StoreError(errno: failure, path: journalPath)
    }

    /// Where the lines appended without a sync begin; nil when all are synced.
    private var unsyncedFrom: off_t?
    /// The journal's fdatasyncs so far (for tests: what a burst costs).
    package private(set) var journalSyncs = 0

    /// Syncs the lines appended with `sync` false.
    /// - Throws: the system's reason; the lines are then still unsynced
    ///   (`discardUnsynced` cuts them off).
    func syncJournal() throws(StoreError) {
        guard unsyncedFrom != nil else { return }
        if syncFailure != 0 { throw StoreError(errno: syncFailure, path: journalPath) }
        journalSyncs += 1
        guard fdatasync(journal) == 0 else { throw StoreError(errno: errno, path: journalPath) }
        unsyncedFrom = nil
    }

    /// For tests: when not 0, every sync of the journal and every snapshot
    /// fails with this errno (a disk that fails `fdatasync` after taking the
    /// write, which a full or read-only folder does not show).
    var syncFailure: Int32 = 0

    /// Cuts off the lines appended since the last sync (their calls are
    /// answered with an error, so a restart must not read them).
    func discardUnsynced() {
        guard let from = unsyncedFrom else { return }
        if ftruncate(journal, from) != 0 { damaged = true }
        unsyncedFrom = nil
    }

    /// True while the journal may end in a part of a failed append: the next
    /// save must be a snapshot (which empties the journal).
    private(set) var damaged = false

    /// Empties the journal (after a snapshot that holds all of it). If that
    /// fails, its lines stay behind the snapshot's change number: skipped.
    func clearJournal() {
        if journal < 0 { journal = open(journalPath, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600) }
        guard journal >= 0 else { return }
        if ftruncate(journal, 0) == 0 {
            damaged = false
            unsyncedFrom = nil
            _ = fdatasync(journal)
        }
    }

    /// The journal's whole lines; `.corrupt` if a whole line is not JSON.
    /// A last line cut short by a crash is left out, and cut off the file:
    /// a line appended after it would make the whole journal unreadable
    /// (the restart's new snapshot, which empties the journal, may fail on a
    /// full disk while an append still fits). If it cannot be cut off, the
    /// journal is `damaged`: the next save is a snapshot.
    func readJournal() throws(TocsinError) -> [JSON] {
        guard access(journalPath, F_OK) == 0 else { return [] }
        let bytes = try TimerFile.read(journalPath)
        let whole = (bytes.lastIndex(of: UInt8(ascii: "\n")) ?? -1) + 1
        if whole < bytes.count, truncate(journalPath, off_t(whole)) != 0 { damaged = true }
        var records: [JSON] = []
        for line in bytes[..<whole].split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true) {
            guard let record = JSON.parse(Array(line)) else { throw .corrupt }
            records.append(record)
        }
        return records
    }

    /// The default place (its folder is made, 0700, at the first write).
    package static func standard() -> ServiceStore {
        let environment = { (name: String) in getenv(name).map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } }
        let state = environment("XDG_STATE_HOME") ?? ((environment("HOME") ?? "/tmp") + "/.local/state")
        return ServiceStore(path: state + "/tocsin/timers.json")
    }

    /// One line for `tocsin doctor`: where the timers are kept, and whether
    /// changes can be written there.
    package var diagnosis: String {
        let folder = path.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        var existing = folder  // the folder is made at the first change: ask its nearest ancestor
        while access(existing, F_OK) != 0, let cut = existing.lastIndex(of: "/"), cut > existing.startIndex {
            existing = String(existing[..<cut])
        }
        let note = existing == folder ? "" : " (made at the first change)"
        var info = statvfs()
        guard statvfs(existing, &info) == 0 else {
            return "timer state: \(folder)\(note): cannot be looked at: \(String(cString: strerror(errno)))"
        }
        if info.f_flag & UInt(ST_RDONLY) != 0 {
            return "timer state: \(folder)\(note): not writable (\(String(cString: strerror(EROFS)))): every change would be refused"
        }
        // Permissions, ACLs, root, and file systems that take no new files
        // (sysfs, procfs) answer only to a try: a folder made and removed.
        var probe = Array((existing + "/.tocsin-probe-XXXXXX").utf8CString)
        guard let made = mkdtemp(&probe) else {
            return "timer state: \(folder)\(note): not writable (\(String(cString: strerror(errno)))): every change would be refused"
        }
        rmdir(made)
        let free = UInt64(info.f_bavail) * UInt64(info.f_frsize)
        return "timer state: \(folder)\(note): writable, \(free / 1_000_000) MB free"
    }

    static let format = "tocsin-service"
    static let version: Int64 = 1

    /// Writes the snapshot atomically (the old one stays whole on failure).
    /// - Throws: the system's reason.
    func write(_ document: JSON) throws(StoreError) {
        if let failure = makeFolders() { throw failure }
        if syncFailure != 0 { throw StoreError(errno: syncFailure, path: path) }
        let failure = TimerFile.writeAtomicallyReportingErrno(document.encodedFile(), to: path)
        guard failure == 0 else { throw StoreError(errno: failure, path: path) }
    }

    /// The file's JSON; nil if there is none; `.corrupt` if it is not one.
    func read() throws(TocsinError) -> JSON? {
        guard access(path, F_OK) == 0 else { return nil }
        guard let document = JSON.parse(try TimerFile.read(path)),
              case .string(Self.format)? = document["format"],
              case .integer(Self.version)? = document["version"]
        else { throw .corrupt }
        return document
    }

    /// Moves files that cannot be read aside (`timers.json.corrupt`,
    /// `timers.journal.corrupt`), so that they are kept for a person to look
    /// at and the service can start.
    func setAside() {
        if journal >= 0 { close(journal) }
        journal = -1
        _ = rename(path, path + ".corrupt")
        _ = rename(journalPath, journalPath + ".corrupt")
    }

    /// Makes the folders of `path`, the last one 0700.
    /// Makes the snapshot's folder and those above it that are missing.
    /// - Returns: nil if the folder is there, else which folder could not
    ///   be made and why ("Permission denied", "Read-only file system").
    @discardableResult
    func makeFolders() -> StoreError? {
        var folder = ""
        let parts = path.split(separator: "/", omittingEmptySubsequences: false).dropLast()
        for (index, part) in parts.enumerated() where !part.isEmpty || index == 0 {
            folder += index == 0 ? String(part) : "/" + part
            guard !folder.isEmpty, mkdir(folder, index == parts.count - 1 ? 0o700 : 0o755) != 0 else { continue }
            let failure = errno
            var info = stat()
            guard failure == EEXIST, stat(folder, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
                return StoreError(errno: failure == EEXIST ? ENOTDIR : failure, folder: folder)
            }
        }
        return nil
    }
}

/// Why the state could not be written: the file (or the folder that could
/// not be made) and the system's reason.
struct StoreError: Error, CustomStringConvertible {
    let path: String
    let reason: String
    /// True if `path` is a folder that could not be made.
    let isFolder: Bool

    init(errno code: Int32, path: String) {
        self.path = path
        reason = String(cString: strerror(code))
        isFolder = false
    }

    init(errno code: Int32, folder: String) {
        path = folder
        reason = String(cString: strerror(code))
        isFolder = true
    }

    /// "cannot make the folder /x/tocsin: Permission denied", "cannot
    /// write /x/tocsin/timers.journal: No space left on device".
    var description: String {
        "cannot \(isFolder ? "make the folder" : "write") \(path): \(reason)"
    }
}

/// One line on standard error (the journal, under systemd), unbuffered.
func logLine(_ line: String) {
    Descriptor.complain("tocsin service: " + line)
}
