import Glibc
import TocsinBase

/// Which boot of the machine, and the boot clock then: a file saved and
/// loaded in the same boot measures the time away on the boot clock, which
/// no change of the wall clock moves.
package struct BootStamp: Equatable, Sendable {
    /// `/proc/sys/kernel/random/boot_id`: a UUID, new at every boot.
    package var id: String
    /// `CLOCK_BOOTTIME`, ns.
    package var time: Int64
    /// `CLOCK_MONOTONIC` (the awake clock), ns; nil in files without it.
    package var awake: Int64?

    package init(id: String, time: Int64, awake: Int64? = nil) {
        self.id = id
        self.time = time
        self.awake = awake
    }

    /// This boot now; nil if the kernel does not say which boot this is.
    package static func current() -> BootStamp? {
        bootID.map { BootStamp(id: $0, time: bootClockNow(), awake: Clocks.monotonic()) }
    }

    /// This boot's id, read once: a process lives in one boot, and reading
    /// it for each timer loaded or saved was an eighth of a service's
    /// restart with 10,000 timers.
    private static let bootID: String? = {
        // A /proc file says its size is 0: read what it gives.
        let fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 64)
        let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
        guard count > 0 else { return nil }
        let id = String(decoding: buffer.prefix(count).filter { $0 > 0x20 }, as: UTF8.self)
        return isBootID(id) ? id : nil
    }()

    /// 8-4-4-4-12 lowercase hexadecimal digits.
    static func isBootID(_ text: String) -> Bool {
        let groups = text.utf8.split(separator: UInt8(ascii: "-"), omittingEmptySubsequences: false)
        return groups.map { $0.count } == [8, 4, 4, 4, 12]
            && groups.allSatisfy { $0.allSatisfy { (48...57).contains($0) || (97...102).contains($0) } }
    }
}

/// The timer file (docs/timer-file.md): its JSON, and reading and writing
/// it whole. Knows nothing of engines.
package enum TimerFile {
    /// The file format's name and version (`"format"`, `"version"`); files of
    /// version 1 (no boot stamp) still load.
    static let format = "tocsin-timers"
    static let version: Int64 = 2
    /// Larger files are not read: they are not timer files.
    package static let maxBytes = 64 << 20

    /// What a file holds besides its timers.
    struct Header: Equatable {
        /// `CLOCK_REALTIME` at the save, ns.
        var realtime: Int64
        /// The boot and boot clock at the save; nil in version 1 files.
        var boot: BootStamp?
    }

    /// The file's text for `timers`.
    static func encode(_ timers: [SavedTimer], header: Header) -> [UInt8] {
        document(timers, header: header).encodedFile()
    }

    /// The file's JSON for `timers`.
    static func document(_ timers: [SavedTimer], header: Header) -> JSON {
        var members: [(String, JSON)] = [
            ("format", .string(format)), ("version", .integer(version)),
            ("saved_realtime_ns", .integer(header.realtime)),
        ]
        if let boot = header.boot {
            members += [("boot_id", .string(boot.id)), ("saved_boottime_ns", .integer(boot.time))]
            if let awake = boot.awake { members.append(("saved_awake_ns", .integer(awake))) }
        }
        members.append(("timers", .array(timers.map { $0.json })))
        return .object(members)
    }

    /// The header and timers, or `.corrupt` for anything else.
    static func decode(_ bytes: [UInt8]) throws(TocsinError) -> (header: Header, timers: [SavedTimer]) {
        guard let document = JSON.parse(bytes) else { throw .corrupt }
        return try decode(document: document)
    }

    /// As `decode`, from the file's JSON.
    static func decode(document: JSON) throws(TocsinError) -> (header: Header, timers: [SavedTimer]) {
        guard document["format"]?.isString(format) == true,
              case .integer(let fileVersion)? = document["version"], fileVersion == 1 || fileVersion == version,
              case .integer(let savedAt)? = document["saved_realtime_ns"], savedAt >= 0,
              case .array(let items)? = document["timers"], items.count <= Int(SlotTable.maxSlots)
        else { throw .corrupt }
        var header = Header(realtime: savedAt)
        switch (document["boot_id"], document["saved_boottime_ns"]) {
        case (nil, nil): break
        case (.string(let id)?, .integer(let time)?) where fileVersion >= 2 && BootStamp.isBootID(id) && time >= 0:
            header.boot = BootStamp(id: id, time: time)
        default: throw .corrupt  // one without the other, a bad value, or in a version 1 file
        }
        switch document["saved_awake_ns"] {
        case nil: break
        case .integer(let awake)? where header.boot != nil && awake >= 0: header.boot?.awake = awake
        default: throw .corrupt
        }
        var timers: [SavedTimer] = []
        for item in items {
            guard let timer = SavedTimer(item) else { throw .corrupt }
            timers.append(timer)
        }
        return (header, timers)
    }

    /// How long the timers were away, on each clock.
    struct TimeAway: Equatable {
        /// On the boot clock when saved in this boot (immune to wall-clock
        /// jumps either way), else on the wall clock, a clock that went
        /// backwards counting as none.
        var boot: Int64
        /// On the awake clock when saved in this boot; none after a restart
        /// (or from a file that does not say).
        var awake: Int64
    }

    static func timeAway(since saved: Header, realtime: Int64, boot: BootStamp?) -> TimeAway {
        if let then = saved.boot, let now = boot, then.id.isSame(as: now.id) {
            let awake = then.awake.flatMap { before in now.awake.map { max(0, $0 - before) } } ?? 0
            return TimeAway(boot: max(0, now.time - then.time), awake: awake)
        }
        return TimeAway(boot: max(0, realtime - saved.realtime), awake: 0)
    }

    /// The whole file: `.io` if it cannot be read or is no regular file
    /// (`errno` then says why: ENOENT, EACCES, EISDIR...), `.corrupt` if it
    /// is too large or shrinks while read.
    package static func read(_ path: String) throws(TocsinError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .io }
        defer { close(fd) }  // (a close that succeeds leaves errno alone)
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw .io }
        guard info.st_mode & mode_t(S_IFMT) == mode_t(S_IFREG) else {
            errno = info.st_mode & mode_t(S_IFMT) == mode_t(S_IFDIR) ? EISDIR : EINVAL
            throw .io
        }
        guard info.st_size <= maxBytes else { throw .corrupt }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeMutableBytes { buffer in
                Glibc.read(fd, buffer.baseAddress.unsafelyUnwrapped + offset, buffer.count - offset)
            }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { throw count == 0 ? .corrupt : .io }  // shrank while read
            offset += count
        }
        return bytes
    }

    /// Replaces `path` atomically: a temporary file in the same folder,
    /// fsync, rename, fsync of the folder, so a crash leaves the old file or
    /// the new one. Mode 0600. On failure the old file is untouched, the
    /// temporary file removed, and `errno` is left as the failing call set
    /// it (ENOSPC, EROFS, EACCES...), so a caller can say why.
    package static func writeAtomically(_ bytes: [UInt8], to path: String) throws(TocsinError) {
        let failure = writeAtomicallyReportingErrno(bytes, to: path)
        guard failure == 0 else {
            errno = failure
            throw .io
        }
    }

    /// `writeAtomically`: 0 on success, else the failing call's errno.
    package static func writeAtomicallyReportingErrno(_ bytes: [UInt8], to path: String) -> Int32 {
        var template = Array((path + ".XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress.unsafelyUnwrapped) }
        guard fd >= 0 else { return errno }
        let temporary = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var failure: Int32 = fchmod(fd, 0o600) == 0 ? 0 : errno
        var offset = 0
        while failure == 0 && offset < bytes.count {
            let count = bytes.withUnsafeBytes { buffer in
                write(fd, buffer.baseAddress.unsafelyUnwrapped + offset, buffer.count - offset)
            }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { failure = count < 0 ? errno : ENOSPC }
            offset += max(0, count)
        }
        if failure == 0 && fsync(fd) != 0 { failure = errno }
        if close(fd) != 0 && failure == 0 { failure = errno }
        if failure == 0 && rename(temporary, path) != 0 { failure = errno }
        guard failure == 0 else {
            unlink(temporary)
            return failure
        }
        let folder = path.utf8.lastIndex(of: UInt8(ascii: "/")).map { String(decoding: path.utf8[..<$0], as: UTF8.self) } ?? "."
        let dirfd = open(folder.isEmpty ? "/" : folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dirfd >= 0 {
            fsync(dirfd)  // the rename itself reaches the disk
            close(dirfd)
        }
        return 0
    }
}
