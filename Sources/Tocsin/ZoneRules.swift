import Glibc

/// A time zone's UTC offsets, read from its compiled file (TZif, RFC 8536)
/// with libc alone: the transitions of its table, then the POSIX rule of
/// its footer for the times after them. Changes no process state (no
/// `setenv("TZ")`), so any thread may use it. Groundwork of calendar alarms
/// (issue 32).
package struct ZoneRules: Sendable {
    /// UTC seconds at which the offset changes, ascending.
    var transitions: [Int64] = []
    /// The offset (seconds east of UTC) from each transition on.
    var offsets: [Int32] = []
    /// Before the first transition.
    var initialOffset: Int32 = 0
    /// After the last transition (or always, without a table).
    var rule: PosixZoneRule?
    /// Which reading of a zone file these are (`ZoneCache`; unique in the
    /// process); 0 for rules read no other way (a POSIX `TZ` rule, UTC).
    var version: UInt64 = 0

    package static let utc = ZoneRules(rule: PosixZoneRule(standardOffset: 0))

    init(rule: PosixZoneRule?) {
        self.rule = rule
    }

    /// The zone `name` (`Europe/Berlin`) from `$TZDIR`, else
    /// /usr/share/zoneinfo; nil if there is no such compiled zone.
    package init?(named name: String) {
        guard !name.isSame(as: "UTC") else {
            self = .utc
            return
        }
        guard let path = Self.path(ofZone: name), let rules = ZoneCache.shared.rules(atPath: path) else { return nil }
        self = rules
    }

    /// The file of zone `name` under `$TZDIR`, else /usr/share/zoneinfo;
    /// nil for a name that is empty, absolute or climbs out of the folder.
    static func path(ofZone name: String) -> String? {
        guard !name.isEmpty, name.utf8.first != UInt8(ascii: "/"), !climbs(name) else { return nil }
        let folder = getenv("TZDIR").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? "/usr/share/zoneinfo"
        return folder + "/" + name
    }

    /// True if a part of `name` between slashes is `..` (scanned as bytes:
    /// looked up at every occurrence and every `tocsin_calendar_next`).
    private static func climbs(_ name: String) -> Bool {
        var run = 0  // dots since the last slash; -1 once the part has anything else
        for byte in name.utf8 {
            switch byte {
            case UInt8(ascii: "/"):
                if run == 2 { return true }
                run = 0
            case UInt8(ascii: "."): run = run < 0 ? -1 : run + 1
            default: run = -1
            }
        }
        return run == 2
    }

    /// The local zone: `$TZ` (a zone name, `:name`, a file, or a POSIX
    /// rule), else /etc/localtime, else UTC. Read afresh on every call, so
    /// a change of the system's zone is followed.
    package static func local() -> ZoneRules {
        local(tz: getenv("TZ").map { String(cString: $0) })
    }

    /// The local zone for a given value of `$TZ`.
    static func local(tz raw: String?) -> ZoneRules {
        if let raw, !raw.isEmpty {
            let name = raw.utf8.first == UInt8(ascii: ":") ? String(decoding: raw.utf8.dropFirst(), as: UTF8.self) : raw
            if name.utf8.first == UInt8(ascii: "/"), let rules = ZoneCache.shared.rules(atPath: name) { return rules }
            if let rules = ZoneRules(named: name) { return rules }
            if let rule = PosixZoneRule(name) { return ZoneRules(rule: rule) }
        }
        if let rules = ZoneCache.shared.rules(atPath: "/etc/localtime") { return rules }
        return .utc
    }

    /// Seconds east of UTC in effect at `utc` (Unix seconds).
    package func offset(at utc: Int64) -> Int32 {
        if let last = transitions.last, utc >= last, let rule { return rule.offset(at: utc) }
        guard let first = transitions.first else { return rule?.offset(at: utc) ?? initialOffset }
        guard utc >= first else { return initialOffset }
        var low = 0, high = transitions.count - 1  // the last transition at or before utc
        while low < high {
            let middle = (low + high + 1) / 2
            if transitions[middle] <= utc { low = middle } else { high = middle - 1 }
        }
        return offsets[low]
    }

    // MARK: - Reading TZif

    static func read(_ path: String) -> [UInt8]? {
        guard let file = fopen(path, "rb") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while case let count = fread(&buffer, 1, buffer.count, file), count > 0 {
            bytes += buffer[..<count]
            if bytes.count > 1 << 20 { return nil }  // no zone file is this large
        }
        return bytes
    }

    /// Parses a TZif file (versions 1 to 4); nil if it is not one.
    init?(tzif bytes: [UInt8]) {
        guard bytes.count >= 44, Array(bytes[0..<4]) == Array("TZif".utf8) else { return nil }
        func count(_ at: Int, _ header: Int) -> Int? {
            let start = header + 20 + at * 4
            guard start + 4 <= bytes.count else { return nil }
            let value = bytes[start..<start + 4].reduce(0) { $0 << 8 | Int($1) }
            return value <= 1 << 20 ? value : nil
        }
        // (isutcnt, isstdcnt, leapcnt, timecnt, typecnt, charcnt)
        func counts(_ header: Int) -> [Int]? {
            let values = (0..<6).compactMap { count($0, header) }
            return values.count == 6 ? values : nil
        }
        guard let first = counts(0) else { return nil }
        var header = 0
        var timeSize = 4
        if bytes[4] >= UInt8(ascii: "2") {  // skip the 32-bit data to the 64-bit header
            header = 44 + first[3] * 4 + first[3] + first[4] * 6 + first[5] + first[2] * 8 + first[1] + first[0]
            timeSize = 8
        }
        guard header + 44 <= bytes.count, let c = counts(header) else { return nil }
        let (leapCount, timeCount, typeCount, charCount, stdCount, utcCount) = (c[2], c[3], c[4], c[5], c[1], c[0])
        let times = header + 44
        let indices = times + timeCount * timeSize
        let types = indices + timeCount
        let end = types + typeCount * 6 + charCount + leapCount * (timeSize + 4) + stdCount + utcCount
        guard typeCount > 0, end <= bytes.count else { return nil }
        func integer(_ at: Int, _ size: Int) -> Int64 {
            var value: UInt64 = 0
            for byte in bytes[at..<at + size] { value = value << 8 | UInt64(byte) }
            return size == 4 ? Int64(Int32(bitPattern: UInt32(truncatingIfNeeded: value))) : Int64(bitPattern: value)
        }
        let typeOffsets = (0..<typeCount).map { Int32(truncatingIfNeeded: integer(types + $0 * 6, 4)) }
        for index in 0..<timeCount {
            let type = Int(bytes[indices + index])
            guard type < typeCount else { return nil }
            transitions.append(integer(times + index * timeSize, timeSize))
            offsets.append(typeOffsets[type])
        }
        initialOffset = typeOffsets[0]
        if timeSize == 8, end < bytes.count, bytes[end] == UInt8(ascii: "\n"),
           let close = bytes[(end + 1)...].firstIndex(of: UInt8(ascii: "\n")) {
            rule = PosixZoneRule(String(decoding: bytes[(end + 1)..<close], as: UTF8.self))
        }
    }
}
