import Glibc
import TocsinBase

/// Compiled zones read once per process and kept while their file stays
/// the same: a calendar alarm looks its zone up at every occurrence, and
/// `tocsin_calendar_next` at every call, for the cost of one `stat` rather
/// than a read and a parse (about 1 µs against 15). A file replaced (a
/// tzdata upgrade, `timedatectl set-timezone` relinking /etc/localtime) has
/// a new identity and is read again. Thread-safe.
final class ZoneCache: @unchecked Sendable {
    static let shared = ZoneCache()

    /// What tells one version of a file from the next.
    private struct Identity: Equatable {
        var device: UInt64, inode: UInt64, size: Int64, seconds: Int64, nanoseconds: Int64
    }

    private struct Entry {
        /// The path as bytes: comparing `String`s would pull Unicode tables
        /// into the Embedded library.
        var path: [UInt8]
        var identity: Identity
        var rules: ZoneRules
    }

    /// A program uses one or two zones; a few more are kept, the oldest
    /// dropped first.
    private static var capacity: Int { 16 }
    private let lock = TocsinLock()
    private var entries: [Entry] = []

    /// The zone in the TZif file at `path` (`stat` follows a symbolic
    /// link, so /etc/localtime's target counts); nil if it is not one.
    func rules(atPath path: String) -> ZoneRules? {
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & mode_t(S_IFMT) == mode_t(S_IFREG) else { return nil }
        let identity = Identity(
            device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int64(info.st_size),
            seconds: Int64(info.st_mtim.tv_sec), nanoseconds: Int64(info.st_mtim.tv_nsec))
        let key = Array(path.utf8)
        let cached = lock.withLock { entries.first { $0.path == key && $0.identity == identity }?.rules }
        if let cached { return cached }
        guard let bytes = ZoneRules.read(path), let rules = ZoneRules(tzif: bytes) else { return nil }
        lock.withLock {
            entries.removeAll { $0.path == key }
            if entries.count >= Self.capacity { entries.removeFirst() }
            entries.append(Entry(path: key, identity: identity, rules: rules))
        }
        return rules
    }
}
