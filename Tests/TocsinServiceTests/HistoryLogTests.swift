import Glibc
import Testing
import Tocsin
@testable import TocsinService

/// The history the service appends to (`HistoryLog`), on a manual clock:
/// what each line says, rotation, and paths it will not write.
@Suite struct HistoryLogTests {
    let folder: String

    init() {
        var template = Array("/tmp/tocsin-history-XXXXXX".utf8CString)
        folder = String(cString: mkdtemp(&template))
    }

    func service() throws -> TimerService {
        TimerService(engine: try TimerEngine(delivery: .manualClock), store: ServiceStore(path: folder + "/timers.json"), notifier: nil)
    }

    func records(_ path: String? = nil) -> [HistoryRecord] {
        guard let file = fopen(path ?? folder + "/history.jsonl", "r") else { return [] }
        defer { fclose(file) }
        var records: [HistoryRecord] = []
        var line: UnsafeMutablePointer<CChar>?
        var size = 0
        while getline(&line, &size, file) > 0, let line {
            let text = String(cString: line)
            if let json = JSON.parse(Array(text.utf8.dropLast()), fractions: true), let record = HistoryRecord(json: json) {
                records.append(record)
            }
        }
        free(line)
        return records
    }

    @Test func aRunsDurationLeavesOutItsPausesAndASnoozeCountsOnlyItsOwnTime() throws {
        let service = try service()
        let tea = try service.add(label: "Tea", seconds: 10, options: [:], caller: .user)
        try service.deliverEvents { try service.engine.advance(by: .seconds(4)) }
        try service.pause(tea)
        try service.deliverEvents { try service.engine.advance(by: .seconds(100)) }
        try service.resume(tea)
        try service.deliverEvents { try service.engine.advance(by: .seconds(6)) }
        try service.snooze(tea, seconds: 60)
        try service.deliverEvents { try service.engine.advance(by: .seconds(60)) }
        let lines = records()
        #expect(lines.map(\.event) == [.finish, .snooze, .finish])
        #expect(lines.map(\.duration) == [10, nil, 60])
        #expect(lines[1].snooze == 60 && lines.allSatisfy { $0.id == tea && $0.label == "Tea" && $0.kind == "countdown" })
        #expect(lines[0].started != nil && lines[2].started != nil)
    }

    @Test func aStopwatchStopsACountdownIsCancelledAndARemovalEndsARun() throws {
        let service = try service()
        let run = try service.add(label: "Run", seconds: 0, options: ["kind": .text("stopwatch")], caller: .user)
        let soup = try service.add(label: "Soup", seconds: 600, options: [:], caller: .user)
        let roast = try service.add(label: "Roast", seconds: 600, options: [:], caller: .user)
        let later = try service.add(label: "Later", seconds: 600, options: ["start": .flag(false)], caller: .user)
        try service.deliverEvents { try service.engine.advance(by: .seconds(30)) }
        try service.cancel(run)
        try service.cancel(soup)
        try service.remove(roast)
        try service.remove(later)  // never ran: nothing to say
        #expect(records().map { "\($0.event) \($0.label) \($0.duration ?? -1)" } == ["stop Run 30.0", "cancel Soup 30.0", "cancel Roast 30.0"])
    }

    @Test func theFileIsRotatedPastItsLimitAndOneOldFileKept() {
        let log = HistoryLog(folder: folder, rotateBytes: 400)
        for id in 1...12 { log.append(HistoryRecord(at: Double(id), event: .finish, id: UInt64(id), label: "Tea", kind: "countdown")) }
        let old = records(log.oldPath), new = records()
        #expect(old.count + new.count < 12 && !old.isEmpty && !new.isEmpty)  // the first file's lines are gone
        #expect(new.last?.id == 12 && old.last.map { $0.id + 1 } == new.first?.id)
        var info = stat()
        #expect(stat(log.path, &info) == 0 && info.st_mode & 0o777 == 0o600 && info.st_size <= 400)
    }

    @Test func aSymbolicLinkOrAFIFOIsNotWritten() {
        let target = folder + "/elsewhere"
        close(open(target, O_WRONLY | O_CREAT, 0o600))
        let log = HistoryLog(folder: folder)
        let record = HistoryRecord(at: 1, event: .cancel, id: 1, label: "Tea", kind: "countdown")
        #expect(symlink(target, log.path) == 0)
        log.append(record)
        var info = stat()
        #expect(stat(target, &info) == 0 && info.st_size == 0)
        unlink(log.path)
        #expect(mkfifo(log.path, 0o600) == 0)
        log.append(record)  // (returns at once: a FIFO with no reader is refused, never waited on)
        unlink(log.path)
        log.append(record)  // its own file again: written
        #expect(records().count == 1)
    }
}
