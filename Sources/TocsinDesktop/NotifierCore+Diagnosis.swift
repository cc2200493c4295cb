import Glibc
import TocsinBase

/// What the desktop offers the notifier, for `tocsin doctor` and bug reports.
public struct Diagnosis: Sendable, CustomStringConvertible {
    /// The session bus address, or why there is none.
    public var sessionBus: Result<String, DiagnosisProblem>
    /// The notification server, or why it cannot be reached.
    public var notificationServer: Result<NotificationServer, DiagnosisProblem>
    /// "ok (...)" or why sounds cannot play.
    public var soundServer: String
    /// Each alarm sound id and the file the sound theme resolves it to.
    public var soundFiles: [(id: String, path: String?)]

    public var description: String {
        var lines: [String] = []
        switch sessionBus {
        case .success(let address): lines.append("session bus: ok (\(address))")
        case .failure(let problem): lines.append(problem.reason)
        }
        switch (notificationServer, sessionBus) {
        case (.success(let server), _):
            lines.append("notification server: \(server.name) \(server.version) by \(server.vendor), spec \(server.specVersion)")
            lines.append("capabilities: \(server.capabilities.joined(separator: " "))")
        case (.failure, .failure): lines.append("notification server: not reachable without a session bus")
        case (.failure(let problem), .success): lines.append(problem.reason)
        }
        lines.append(soundServer)
        for (id, path) in soundFiles {
            lines.append("sound \(id): \(path ?? "not found")")
        }
        return lines.joined(separator: "\n")
    }
}

public struct DiagnosisProblem: Error, Sendable {
    public var reason: String
}

extension NotifierCore {
    /// Checks the session bus, the notification server and the sound server,
    /// and which file each alarm sound is. Bounded: at most 1 s for each of
    /// two D-Bus calls and 2 s for the sound server.
    func diagnose() -> Diagnosis {
        let bus = DesktopProbe.sessionBus().mapError { DiagnosisProblem(reason: $0.reason) }
        let server = DesktopProbe.notificationServer().mapError { DiagnosisProblem(reason: $0.reason) }
        let answer = SoundAnswer()
        sound.post(.probe { text in answer.set(text) })
        let soundServer = answer.wait(nanoseconds: 2_000_000_000)
            ?? "sound server: not answering within 2 s (frozen?)"
        let files = Alert.fallbackSounds.map { (id: $0, path: DesktopProbe.soundFile(for: $0)) }
        return Diagnosis(sessionBus: bus, notificationServer: server, soundServer: soundServer, soundFiles: files)
    }
}

/// One answer handed from the sound thread, waited for with a timeout.
private final class SoundAnswer: @unchecked Sendable {
    private let lock = TocsinLock()
    private var text: String?

    func set(_ value: String) {
        lock.withLock {
            text = value
            lock.broadcast()
        }
    }

    func wait(nanoseconds: Int64) -> String? {
        let deadline = Clocks.monotonic() + nanoseconds
        return lock.withLock {
            while text == nil, Clocks.monotonic() < deadline {
                _ = lock.wait(nanoseconds: deadline - Clocks.monotonic())
            }
            return text
        }
    }
}
