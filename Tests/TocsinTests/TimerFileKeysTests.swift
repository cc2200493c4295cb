import Glibc
import Testing
@testable import Tocsin

/// docs/timer-file.md: names a reader does not know are ignored (a newer
/// version's fields), so a misspelt optional name is too; a misspelt
/// required one is a missing field: refused.
@Suite struct TimerFileKeysTests {
    let path = temporaryFolder("/tmp/tocsin-file-keys") + "/timers.json"

    /// The saved file of one running countdown with a leeway, as text.
    func savedText() throws -> String {
        let engine = try TimerEngine(delivery: .manualClock)
        defer { engine.close() }
        let timer = try engine.countdown(.seconds(60))
        try engine.setLeeway(.seconds(1), for: timer)
        try engine.start(timer)
        try engine.save(to: path)
        return String(decoding: try TimerFile.read(path), as: UTF8.self)
    }

    func load(_ text: String) throws(TocsinError) -> (TimerEngine, [TimerID]) {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        _ = Array(text.utf8).withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        Glibc.close(fd)
        let engine = try TimerEngine(delivery: .manualClock)
        do { return (engine, try engine.load(from: path)) } catch { engine.close(); throw error }
    }

    @Test func unknownNamesAreIgnored() throws {
        let text = try savedText()
        let extended = text
            .replacingFirst("\"format\": ", with: "\"from_the_future\": [1, {\"x\": null}], \"format\": ")
            .replacingFirst("\"kind\": ", with: "\"colour\": \"red\", \"kind\": ")
        #expect(extended.contains("from_the_future") && extended.contains("colour"))
        let (engine, timers) = try load(extended)
        defer { engine.close() }
        #expect(timers.count == 1)
        #expect(try engine.state(of: timers[0]) == .running)
        #expect(try engine.leeway(of: timers[0]) == .seconds(1))
    }

    @Test func aMisspeltOptionalNameIsIgnoredAndARequiredOneRefused() throws {
        let text = try savedText()
        #expect(text.contains("\"leeway_ns\""))
        let (engine, timers) = try load(text.replacingFirst("\"leeway_ns\"", with: "\"leway_ns\""))
        defer { engine.close() }
        #expect(try engine.leeway(of: timers[0]) == .zero)  // as if it had none
        let misspelt = text.replacingFirst("\"duration_ns\"", with: "\"duraton_ns\"")
        #expect(misspelt != text)
        #expect(throws: TocsinError.corrupt) { _ = try load(misspelt) }
    }
}
