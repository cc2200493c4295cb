import Glibc
import Tocsin
import TocsinBase

/// The history file the service appends to: `history.jsonl` in the folder
/// of its timers' files (`$XDG_STATE_HOME/tocsin/`), mode 0600, one
/// `HistoryRecord` a line (docs/history.md).
///
/// Cheap on the service's thread: the file stays open (`O_APPEND`), a line
/// is one `write`, never synced (a power cut may lose the last lines the
/// kernel had not written yet; the timers' own journal is what is synced).
/// Past `rotateBytes` the file becomes `history.jsonl.1` (the one before
/// goes) and a new one is begun.
///
/// Never a reason to refuse a call or lose a timer: a line that cannot be
/// written is dropped and said once in the service's log (`logLine`) until
/// one can be again. A path that is not a regular file of this user's with
/// one name (a symbolic link, a FIFO, another user's file, a hard link) is
/// never written: said once, the same way.
///
/// Used on the service's thread only.
package final class HistoryLog {
    /// The file's name in the state folder.
    package static let fileName = "history.jsonl"
    /// The size (bytes) past which the file is rotated: 1 MiB, about 7,000
    /// lines; with the one old file kept, the history holds 7,000 to 14,000.
    package static let rotateBytes: Int64 = 1 << 20

    package let path: String
    /// The rotated file's path (`history.jsonl.1`).
    package var oldPath: String { path + ".1" }
    private let limit: Int64
    private var fd: Int32 = -1
    /// The open file's device and inode: when the path names another file
    /// (moved, removed, replaced), the next line opens it again.
    private var opened: (dev_t, ino_t)?
    /// The trouble last said in the log, until a line is written again.
    private var said: String?
    /// A failed rotation was said (once: the file grows on meanwhile).
    private var rotationSaid = false

    /// The history in `folder` (the service's state folder).
    package init(folder: String, rotateBytes: Int64 = HistoryLog.rotateBytes) {
        path = folder + "/" + Self.fileName
        limit = rotateBytes
    }

    deinit {
        if fd >= 0 { close(fd) }
    }

    /// The history beside the timers' files of `store`.
    package convenience init(beside store: ServiceStore) {
        self.init(folder: Self.folder(of: store.path))
    }

    /// The folder of the file at `path`.
    package static func folder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// Appends `record` as one line: one `write` (a short one is cut back
    /// off, so that no part of a line stays for the next to follow).
    package func append(_ record: HistoryRecord) {
        let line = Array((record.json.compactEncoded() + "\n").utf8)
        guard var file = openFile() else { return }
        var info = stat()
        guard fstat(file, &info) == 0 else { return trouble("cannot write \(path): \(String(cString: strerror(errno)))") }
        if info.st_size > 0, Int64(info.st_size) + Int64(line.count) > limit {
            guard let again = rotate() else { return }
            file = again
            info.st_size = 0
        }
        let failure = Descriptor.write(line, to: file)
        guard failure == 0 else {
            _ = ftruncate(file, info.st_size)
            return trouble("cannot write \(path): \(String(cString: strerror(failure))); the line is lost")
        }
        if said != nil { logLine("\(path) written again") }
        said = nil
    }

    /// The open file, opened (and made if missing) when the path names
    /// another file than the one open, or nil after saying why it cannot be.
    private func openFile() -> Int32? {
        var named = stat()
        if fd >= 0, lstat(path, &named) == 0, let (dev, ino) = opened, named.st_dev == dev, named.st_ino == ino {
            return fd
        }
        closeFile()
        // O_NOFOLLOW: a symbolic link is refused (ELOOP); O_NONBLOCK: a FIFO
        // with no reader is refused (ENXIO) instead of blocking the service.
        let file = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY, 0o600)
        guard file >= 0 else {
            let failure = errno
            switch failure {
            case ELOOP: trouble("\(path) is a symbolic link: not written (the history is a file of its own)")
            case ENXIO: trouble("\(path) is not a regular file: not written")
            default: trouble("cannot open \(path): \(String(cString: strerror(failure))); the line is lost")
            }
            return nil
        }
        var info = stat()
        guard fstat(file, &info) == 0 else {
            close(file)
            trouble("cannot open \(path): \(String(cString: strerror(errno))); the line is lost")
            return nil
        }
        let problem = info.st_mode & S_IFMT != S_IFREG ? "is not a regular file"
            : info.st_uid != geteuid() ? "belongs to another user (uid \(info.st_uid))"
            : info.st_nlink != 1 ? "has other names (hard links)" : nil
        if let problem {
            close(file)
            trouble("\(path) \(problem): not written")
            return nil
        }
        _ = fchmod(file, 0o600)  // (a file made by hand, or with a wider umask)
        fd = file
        opened = (info.st_dev, info.st_ino)
        return file
    }

    /// Moves the full file to `oldPath` and opens a new one.
    private func rotate() -> Int32? {
        guard rename(path, oldPath) == 0 else {
            if !rotationSaid { logLine("history: cannot rotate \(path): \(String(cString: strerror(errno))); it grows on") }
            rotationSaid = true
            return fd
        }
        rotationSaid = false
        closeFile()
        return openFile()
    }

    private func closeFile() {
        if fd >= 0 { close(fd) }
        fd = -1
        opened = nil
    }

    /// Says `problem` in the service's log unless it was the last said.
    private func trouble(_ problem: String) {
        guard problem != said else { return }
        said = problem
        logLine("history: " + problem)
    }
}
