import Glibc
import TocsinBase

/// Compiled zones read once per process and kept while their file stays
/// the same: a calendar alarm looks its zone up at every occurrence, and
/// `tocsin_calendar_next` at every call. A file is looked at (`stat`, about
/// a microsecond) at most once a second, and read again when it has a new
/// identity: a tzdata upgrade, or `timedatectl set-timezone` relinking
/// /etc/localtime, is followed within a second. Thread-safe.
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
        /// `CLOCK_MONOTONIC` when its identity was last checked.
        var checked: Int64
    }

    /// How long a file's identity is trusted without a new look, in ns.
    private static var recheckAfter: Int64 { 1_000_000_000 }

    /// A program uses one or two zones; a few more are kept, the oldest
    /// dropped first.
    private static var capacity: Int { 16 }
    private let lock = TocsinLock()
    private var entries: [Entry] = []
    private var reads: UInt64 = 0

    /// The zone in the TZif file at `path` (`stat` follows a symbolic
    /// link, so /etc/localtime's target counts); nil if it is not one.
    func rules(atPath path: String) -> ZoneRules? {
        let key = Array(path.utf8)
        let now = Clocks.monotonic()
        let fresh = lock.withLock {
            entries.first { $0.path == key && now - $0.checked < Self.recheckAfter }?.rules
        }
        if let fresh { return fresh }
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & mode_t(S_IFMT) == mode_t(S_IFREG) else { return nil }
        let identity = Identity(
            device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int64(info.st_size),
            seconds: Int64(info.st_mtim.tv_sec), nanoseconds: Int64(info.st_mtim.tv_nsec))
        let cached = lock.withLock { () -> ZoneRules? in
            guard let index = entries.firstIndex(where: { $0.path == key && $0.identity == identity }) else { return nil }
            entries[index].checked = now
            return entries[index].rules
        }
        if let cached { return cached }
        guard let bytes = ZoneRules.read(path), var rules = ZoneRules(tzif: bytes) else { return nil }
        lock.withLock {
            reads += 1
            rules.version = reads
            entries.removeAll { $0.path == key }
            if entries.count >= Self.capacity { entries.removeFirst() }
            entries.append(Entry(path: key, identity: identity, rules: rules, checked: now))
        }
        return rules
    }
}
