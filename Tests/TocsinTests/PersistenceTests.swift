import Glibc
import Testing
@testable import Tocsin

@Suite struct PersistenceTests {
    static let second: Int64 = 1_000_000_000
    static let savedAt: Int64 = 1_700_000_000 * second

    let path: String

    init() {
        path = temporaryFolder("/tmp/tocsin-persistence") + "/timers.json"
    }

    /// One timer in each state, saved on a manual clock.
    func savedEngine() throws -> [TimerID] {
        let engine = try TimerEngine(delivery: .manualClock)
        defer { engine.close() }
        let idle = try engine.countdown(.seconds(10))
        let running = try engine.countdown(.seconds(60))
        let suspended = try engine.countdown(.seconds(60))
        let finished = try engine.countdown(.seconds(1))
        let canceled = try engine.countdown(.seconds(60))
        let watch = try engine.stopwatch()
        try engine.setLabel("Tea 🍵", for: running)
        try engine.setTickInterval(.seconds(1), for: running)
        for timer in [running, suspended, finished, canceled, watch] { try engine.start(timer) }
        try engine.advance(by: .milliseconds(2500))
        _ = try engine.lap(watch)
        try engine.advance(by: .milliseconds(500))
        try engine.suspend(suspended)
        try engine.cancel(canceled)
        try engine.save(to: path, realtime: Self.savedAt)
        return [idle, running, suspended, finished, canceled, watch]
    }

    @Test func everyStateRoundTripsAndTimeAwayCounts() throws {
        let original = try savedEngine()
        let engine = try TimerEngine(delivery: .manualClock)
        defer { engine.close() }
        let restored = try engine.load(from: path, realtime: Self.savedAt + 10 * Self.second)
        #expect(restored.count == 6)
        #expect(Set(restored).isDisjoint(with: Set(original)))  // new handles
        let states = try restored.map { try engine.state(of: $0) }
        #expect(states == [.idle, .running, .suspended, .finished, .canceled, .running])
        let elapsed = try restored.map { try engine.elapsed(of: $0) }
        #expect(elapsed == [.zero, .seconds(13), .seconds(3), .seconds(1), .seconds(3), .seconds(13)])
        #expect(try engine.label(of: restored[1]) == "Tea 🍵")
        #expect(try engine.laps(of: restored[5]) == [.milliseconds(2500)])
        #expect(try engine.remaining(of: restored[2]) == .seconds(57))  // suspended: exactly kept
        // Ticks carry on from the running time; the ones missed away are not replayed.
        let ticks = Recorder()
        try engine.setHandler(for: restored[1], ticks.handler)
        try engine.advance(by: .seconds(2))
        #expect(ticks.all.map(\.tick) == [14, 15])
        #expect(try engine.timers() == restored)
    }

    @Test func aCountdownThatRanOutWhileAwayFinishesOnceItHasAHandler() throws {
        _ = try savedEngine()
        let engine = try TimerEngine(delivery: .manualClock)
        defer { engine.close() }
        let restored = try engine.load(from: path, realtime: Self.savedAt + 90 * Self.second)
        let tea = restored[1]  // 60 s, 3 s done at the save: ran out 33 s before the load
        #expect(try engine.state(of: tea) == .finished)
        #expect(try engine.remaining(of: tea) == .zero)
        #expect(try engine.advance(by: .zero) == 0)  // held: no handler yet
        let recorder = Recorder()
        try engine.setHandler(for: tea, recorder.handler)
        try engine.advance(by: .zero)
        #expect(recorder.summary == ["finish", "state finished"])
        #expect(recorder.all[0].lateness == .seconds(33))
        #expect(recorder.all[0].elapsed == .seconds(60))
        try engine.setHandler(for: tea, recorder.handler)
        try engine.advance(by: .seconds(1))
        #expect(recorder.all.count == 2)  // delivered once
    }

    @Test func aHeldFinishWaitsForAHandlerThatWantsFinishes() throws {
        _ = try savedEngine()
        let engine = try TimerEngine(delivery: .manualClock)
        defer { engine.close() }
        let tea = try engine.load(from: path, realtime: Self.savedAt + 90 * Self.second)[1]
        let recorder = Recorder()
        try engine.setEventKinds(.stateChange, for: tea)
        try engine.setHandler(for: tea, recorder.handler)
        #expect(try engine.advance(by: .zero) == 0)  // still held: the handler wants no finish
        try engine.setEventKinds(.all, for: tea)
        try engine.advance(by: .zero)
        #expect(recorder.summary == ["finish", "state finished"])
        #expect(recorder.all[0].lateness == .seconds(33))
    }

    @Test func aWallClockThatWentBackwardsCountsAsNoTimeAway() throws {
        _ = try savedEngine()
        let engine = try TimerEngine(delivery: .manualClock)
        defer { engine.close() }
        let restored = try engine.load(from: path, realtime: Self.savedAt - 3600 * Self.second)
        #expect(try engine.state(of: restored[1]) == .running)
        #expect(try engine.elapsed(of: restored[1]) == .seconds(3))
        #expect(try engine.elapsed(of: restored[5]) == .seconds(3))
    }

    @Test func loadAddsToTheEnginesOwnTimers() throws {
        _ = try savedEngine()
        let engine = try TimerEngine(delivery: .manualClock)
        defer { engine.close() }
        let mine = try engine.stopwatch()
        let restored = try engine.load(from: path, realtime: Self.savedAt)
        #expect(try engine.timers() == [mine] + restored)
    }

    @Test func theFileIsPrivateAndNoTemporaryIsLeft() throws {
        _ = try savedEngine()
        var info = stat()
        #expect(stat(path, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600)
        let folder = String(path[..<path.lastIndex(of: "/")!])
        let directory = try #require(opendir(folder))
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            names.append(withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) })
        }
        #expect(names.filter { !$0.hasPrefix(".") } == ["timers.json"])
    }

    @Test func garbageIsRejectedAndTheEngineIsUnchanged() throws {
        _ = try savedEngine()
        let valid = try TimerFile.read(path)
        let engine = try TimerEngine(delivery: .manualClock)
        defer { engine.close() }
        _ = try engine.stopwatch()
        func rejects(_ bytes: [UInt8], as expected: TocsinError = .corrupt) -> Bool {
            let file = path + ".bad"
            let fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            Glibc.close(fd)
            do {
                let loaded = try engine.load(from: file)
                Issue.record("loaded \(loaded.count) timers")
                return false
            } catch {
                if error != expected { Issue.record("\(error.name) instead of \(expected.name) for \(bytes.count) bytes") }
                return error == expected && (try? engine.timerCount()) == 1
            }
        }
        // Cut at every byte of the document (its final newline is not part of it).
        let document = valid.last == 10 ? Array(valid.dropLast()) : valid
        for length in 0..<document.count where !rejects(Array(document.prefix(length))) {
            Issue.record("a file cut at byte \(length) of \(document.count) was accepted")
        }
        let truncations = document.count
        var generator = SplitMix(seed: 7)
        for _ in 0..<200 {
            let noise = (0..<Int(generator.next() % 300)).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            #expect(rejects(noise))
        }
        let text = String(decoding: valid, as: UTF8.self)
        let wrongShapes = [
            "[]", "{}", "null", "42", "\"tocsin\"",
            text.replacingFirst("\"version\": 2", with: "\"version\": 3"),  // a future version
            text.replacingFirst("\"version\": 2", with: "\"version\": \"2\""),
            text.replacingFirst("\"duration_ns\": 60000000000", with: "\"duration_ns\": 99999999999999999999"),
            text.replacingFirst("\"duration_ns\": 60000000000", with: "\"duration_ns\": 6e10"),
            text.replacingFirst("\"elapsed_ns\": 3000000000", with: "\"elapsed_ns\": -3000000000"),
            text.replacingFirst("\"elapsed_ns\": 3000000000", with: "\"elapsed_ns\": 600000000000"),
            text.replacingFirst("\"state\": \"running\"", with: "\"state\": \"sleeping\""),
            text.replacingFirst("\"kind\": \"countdown\"", with: "\"kind\": \"alarm\""),
            text.replacingFirst("\"tick_ns\": 1000000000", with: "\"tick_ns\": -1"),
            text.replacingFirst("\"label\": \"Tea 🍵\"", with: "\"label\": \"\(String(repeating: "x", count: 5000))\""),
            text.replacingFirst("\"format\": \"tocsin-timers\"", with: "\"format\": \"other\""),
            text.replacingFirst("\"laps_ns\": [2500000000]", with: "\"laps_ns\": [99000000000]"),
            text.replacingFirst("\"saved_realtime_ns\": ", with: "\"saved_realtime_ns\": -"),
            text + "{}",
        ]
        for (number, shape) in wrongShapes.enumerated() {
            #expect(shape != text, "shape \(number) changed nothing")
            #expect(rejects(Array(shape.utf8)), "accepted shape \(number)")
        }
        #expect(expectError(.io) { () throws(TocsinError) in try engine.load(from: path + ".missing") })
        #expect(expectError(.io) { () throws(TocsinError) in try engine.load(from: "/") })
        #expect(truncations > 100)
    }

    @Test func timersAreListedInCreationOrderAcrossSlotReuse() throws {
        let engine = try TimerEngine(delivery: .manualClock)
        defer { engine.close() }
        let a = try engine.countdown(.seconds(1))
        let b = try engine.countdown(.seconds(1))
        try engine.free(a)
        let c = try engine.countdown(.seconds(1))  // reuses a's slot
        #expect(try engine.timers() == [b, c])
    }
}

extension String {
    func replacingFirst(_ target: String, with replacement: String) -> String {
        guard let range = range(of: target) else { return self }
        return String(self[..<range.lowerBound]) + replacement + String(self[range.upperBound...])
    }

    func range(of target: String) -> Range<String.Index>? {
        var index = startIndex
        while index < endIndex {
            if self[index...].hasPrefix(target) { return index..<self.index(index, offsetBy: target.count) }
            index = self.index(after: index)
        }
        return nil
    }
}

/// Format 2: the boot stamp, and the time away it measures.
@Suite struct BootClockRestoreTests {
    static let second: Int64 = 1_000_000_000
    static let savedAt: Int64 = 1_700_000_000 * second
    static let boot = BootStamp(id: "f78714b1-9c52-4591-afa1-afc904065c77", time: 100 * second)

    let path: String

    init() {
        path = temporaryFolder("/tmp/tocsin-boot") + "/timers.json"
    }

    /// A 60 s countdown that had run 3 s when saved at `savedAt`, boot time 100 s.
    func save() throws {
        let engine = try TimerEngine(delivery: .manualClock)
        defer { engine.close() }
        let timer = try engine.countdown(.seconds(60))
        try engine.start(timer)
        try engine.advance(by: .seconds(3))
        try engine.save(to: path, realtime: Self.savedAt, boot: Self.boot)
    }

    func elapsedAfterLoad(realtime: Int64, boot: BootStamp?) throws -> Duration {
        let engine = try TimerEngine(delivery: .manualClock)
        defer { engine.close() }
        let restored = try engine.load(from: path, realtime: realtime, boot: boot)
        return try engine.elapsed(of: restored[0])
    }

    @Test func inTheSameBootTheBootClockMeasuresTheTimeAway() throws {
        try save()
        let tenSecondsLater = BootStamp(id: Self.boot.id, time: Self.boot.time + 10 * Self.second)
        // The wall clock jumped an hour forward, then an hour back: neither counts.
        #expect(try elapsedAfterLoad(realtime: Self.savedAt + 3600 * Self.second, boot: tenSecondsLater) == .seconds(13))
        #expect(try elapsedAfterLoad(realtime: Self.savedAt - 3600 * Self.second, boot: tenSecondsLater) == .seconds(13))
    }

    @Test func afterARebootTheWallClockMeasuresIt() throws {
        try save()
        let otherBoot = BootStamp(id: "00000000-0000-4000-8000-000000000000", time: 5 * Self.second)
        #expect(try elapsedAfterLoad(realtime: Self.savedAt + 20 * Self.second, boot: otherBoot) == .seconds(23))
        #expect(try elapsedAfterLoad(realtime: Self.savedAt - 20 * Self.second, boot: otherBoot) == .seconds(3))
        #expect(try elapsedAfterLoad(realtime: Self.savedAt + 20 * Self.second, boot: nil) == .seconds(23))
    }

    @Test func theFileRecordsThisBoot() throws {
        let engine = try TimerEngine(delivery: .manualClock)
        defer { engine.close() }
        _ = try engine.countdown(.seconds(1))
        try engine.save(to: path)
        let text = String(decoding: try TimerFile.read(path), as: UTF8.self)
        let current = try #require(BootStamp.current())
        #expect(text.contains("\"version\": 2"))
        #expect(text.contains("\"boot_id\": \"\(current.id)\""))
        #expect(text.contains("\"saved_boottime_ns\""))
    }

    @Test func theTickPolicyAndAnAdjustmentAreSaved() throws {
        let engine = try TimerEngine(delivery: .manualClock)
        defer { engine.close() }
        let timer = try engine.countdown(.seconds(10))
        try engine.setTickPolicy(.coalesce, for: timer)
        try engine.adjust(timer, by: .seconds(5))
        try engine.save(to: path, realtime: Self.savedAt)
        let other = try TimerEngine(delivery: .manualClock)
        defer { other.close() }
        let restored = try other.load(from: path, realtime: Self.savedAt)
        #expect(try other.tickPolicy(of: restored[0]) == .coalesce)
        #expect(try other.duration(of: restored[0]) == .seconds(15))
        try other.start(restored[0])  // from idle: the adjusted duration
        try other.advance(by: .seconds(15))
        try other.start(restored[0])  // a restart: the created duration
        #expect(try other.duration(of: restored[0]) == .seconds(10))
    }

    @Test func versionOneFilesStillLoad() throws {
        let text = """
            {"format": "tocsin-timers", "version": 1, "saved_realtime_ns": \(Self.savedAt), "timers": [
              {"kind": "countdown", "label": "Old", "duration_ns": 60000000000, "tick_ns": 0,
               "state": "running", "elapsed_ns": 3000000000, "laps_ns": []}]}
            """
        try TimerFile.writeAtomically(Array(text.utf8), to: path)
        #expect(try elapsedAfterLoad(realtime: Self.savedAt + 10 * Self.second, boot: Self.boot) == .seconds(13))
    }

    @Test func badBootFieldsAreCorruptAndChangeNothing() throws {
        try save()
        let good = String(decoding: try TimerFile.read(path), as: UTF8.self)
        let bad = [
            good.replacing(Self.boot.id, with: "not-a-boot-id"),
            good.replacing(Self.boot.id, with: Self.boot.id.uppercased()),
            good.replacing("\"saved_boottime_ns\": 100000000000", with: "\"saved_boottime_ns\": -1"),
            good.replacing("\"saved_boottime_ns\": 100000000000,", with: ""),
            good.replacing("\"boot_id\": \"\(Self.boot.id)\",", with: ""),
            good.replacing("\"version\": 2", with: "\"version\": 1"),
            good.replacing("\"version\": 2", with: "\"version\": 3"),
        ]
        for text in bad {
            #expect(text != good)
            try TimerFile.writeAtomically(Array(text.utf8), to: path)
            let engine = try TimerEngine(delivery: .manualClock)
            defer { engine.close() }
            #expect(throws: TocsinError.corrupt) { try engine.load(from: path, realtime: Self.savedAt, boot: Self.boot) }
            #expect(try engine.timerCount() == 0)
        }
    }
}
