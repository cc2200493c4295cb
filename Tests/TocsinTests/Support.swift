import Glibc
import Synchronization
@testable import Tocsin

/// Collects the events handed to handlers, from any thread.
final class Recorder: Sendable {
    private let events = Mutex<[TimerEvent]>([])

    var handler: @Sendable (TimerEvent) -> Void {
        { event in self.events.withLock { $0.append(event) } }
    }

    var all: [TimerEvent] { events.withLock { $0 } }

    /// Short words per event: "state running", "tick 2", "finish".
    var summary: [String] { all.map(\.summary) }

    func clear() { events.withLock { $0.removeAll() } }
}

extension TimerEvent {
    var summary: String {
        switch kind {
        case .tick: "tick \(tick)"
        case .stateChange: "state \(state)"
        case .finish: "finish"
        }
    }
}

/// A manual-clock engine with a recorder on every timer made through it.
struct ManualRig: ~Copyable {
    let engine: TimerEngine
    let recorder = Recorder()

    init() throws {
        engine = try TimerEngine(delivery: .manualClock)
    }

    deinit { engine.close() }

    func countdown(_ duration: Duration, tick: Duration? = nil) throws -> TimerID {
        let timer = try engine.countdown(duration)
        try engine.setHandler(for: timer, recorder.handler)
        if let tick { try engine.setTickInterval(tick, for: timer) }
        return timer
    }

    func stopwatch(tick: Duration? = nil) throws -> TimerID {
        let timer = try engine.stopwatch()
        try engine.setHandler(for: timer, recorder.handler)
        if let tick { try engine.setTickInterval(tick, for: timer) }
        return timer
    }

    @discardableResult
    func advance(_ step: Duration) throws -> Int { try engine.advance(by: step) }
}

/// Expects `body` to throw exactly `expected`.
func expectError<T>(_ expected: TocsinError, _ body: () throws(TocsinError) -> T) -> Bool {
    do {
        _ = try body()
        return false
    } catch {
        return error == expected
    }
}

/// A new empty folder named after `prefix` ("/tmp/tocsin-files").
func temporaryFolder(_ prefix: String) -> String {
    var template = Array("\(prefix)-XXXXXX".utf8CString)
    return String(cString: mkdtemp(&template))
}

/// Polls `condition` every millisecond until it holds (true) or 30 s have
/// passed (false): a test waits for the thing itself, with a deadline for a
/// loaded machine, not for a guessed time.
func waitUntil(seconds: Int = 30, _ condition: () -> Bool) -> Bool {
    let deadline = ContinuousClock.now + .seconds(seconds)
    while !condition() {
        if ContinuousClock.now > deadline { return false }
        usleep(1_000)
    }
    return true
}

/// What a shell command prints on standard output, and its exit status
/// (the oracles of the calendar tests: systemd-analyze, python3).
func commandOutput(_ command: String) -> (text: String, status: Int32) {
    guard let pipe = popen(command, "r") else { return ("", -1) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    while case let count = fread(&buffer, 1, buffer.count, pipe), count > 0 { bytes += buffer[..<count] }
    return (String(decoding: bytes, as: UTF8.self), pclose(pipe))
}

/// `text` as one shell word.
func shellQuoted(_ text: String) -> String {
    "'" + CalendarSpec.split(text, on: "'").joined(separator: "'\\''") + "'"
}
