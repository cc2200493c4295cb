import Glibc
import Tocsin
import TocsinBase
package import TocsinService

/// One line of the history as read: its record, and its text as it is in
/// the file (what `tocsin log --json` prints).
package struct HistoryLine: Equatable, Sendable {
    package var record: HistoryRecord
    package var text: String

    package init(record: HistoryRecord, text: String) {
        self.record = record
        self.text = text
    }
}

/// What `tocsin log` read of the service's history files: the lines it
/// could read, oldest file first, and how many it could not.
package struct HistoryReading: Sendable {
    package var lines: [HistoryLine] = []
    /// Lines left out: cut short (the last, by a crash or a full disk),
    /// not JSON, not a history line, or of a later version.
    package var skipped = 0
    /// Files that are there but could not be read, each a sentence.
    package var problems: [String] = []

    package init() {}

    /// Reads the history beside the service's timers (`HistoryLog`): the
    /// rotated file, then the current one. Missing files are no history.
    package static func read(_ log: HistoryLog) -> HistoryReading {
        var reading = HistoryReading()
        for path in [log.oldPath, log.path] { reading.read(path) }
        return reading
    }

    /// Adds the lines of the file at `path`, if there is one.
    mutating func read(_ path: String) {
        // O_NONBLOCK: a FIFO put there does not hang the command.
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        guard fd >= 0 else {
            if errno != ENOENT { problems.append(tr("cannot read {file}: {reason}", ["file": path, "reason": String(cString: strerror(errno))])) }
            return
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            problems.append(tr("{file} is not a regular file: not read", ["file": path]))
            return
        }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else {
                if count < 0 { problems.append(tr("cannot read {file}: {reason}", ["file": path, "reason": String(cString: strerror(errno))])) }
                break
            }
            bytes.append(contentsOf: chunk[..<count])
        }
        add(bytes)
    }

    /// Adds the lines of a history file's `bytes`. A last line without its
    /// newline was cut short as it was written: skipped, as a line that
    /// cannot be read is.
    package mutating func add(_ bytes: [UInt8]) {
        var lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        if lines.last?.isEmpty == true { lines.removeLast() } else if !lines.isEmpty { skipped += 1; lines.removeLast() }
        for line in lines where !line.isEmpty {
            guard let json = JSON.parse(Array(line), fractions: true), let record = HistoryRecord(json: json) else {
                skipped += 1
                continue
            }
            self.lines.append(HistoryLine(record: record, text: String(decoding: line, as: UTF8.self)))
        }
    }

    /// The lines at or after `since` (Unix seconds) with label `label`
    /// (exactly; nil: any), in the order they were written.
    package func filtered(since: Int64?, label: String?) -> [HistoryLine] {
        lines.filter { line in
            (since.map { line.record.at >= Double($0) } ?? true) && (label.map { line.record.label == $0 } ?? true)
        }
    }
}
