import Glibc
package import Tocsin
import TocsinBase

/// Where the service keeps its timers: `$XDG_STATE_HOME/tocsin/timers.json`
/// (`~/.local/state/tocsin/timers.json` by default), folder 0700, file 0600,
/// replaced atomically. The file wraps the engine's timer file (see
/// docs/timer-file.md) with what the service adds per timer: its id, kind,
/// alert and sound, the timer it waits for, when it finished.
package struct ServiceStore: Sendable {
    package let path: String

    package init(path: String) {
        self.path = path
    }

    /// The default place, its folder made (0700) if missing.
    package static func standard() -> ServiceStore {
        let environment = { (name: String) in getenv(name).map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } }
        let state = environment("XDG_STATE_HOME") ?? ((environment("HOME") ?? "/tmp") + "/.local/state")
        return ServiceStore(path: state + "/tocsin/timers.json")
    }

    static let format = "tocsin-service"
    static let version: Int64 = 1

    /// Writes the file; false if it could not be written.
    func write(_ document: JSON) -> Bool {
        makeFolders()
        do throws(TocsinError) {
            try TimerFile.writeAtomically(Array((document.encoded() + "\n").utf8), to: path)
            return true
        } catch {
            return false
        }
    }

    /// The file's JSON; nil if there is none; `.corrupt` if it is not one.
    func read() throws(TocsinError) -> JSON? {
        guard access(path, F_OK) == 0 else { return nil }
        guard let document = JSON.parse(try TimerFile.read(path)),
              case .string(Self.format)? = document["format"],
              case .integer(Self.version)? = document["version"]
        else { throw .corrupt }
        return document
    }

    /// Moves a file that cannot be read aside (`timers.json.corrupt`), so
    /// that it is kept for a person to look at and the service can start.
    func setAside() {
        _ = rename(path, path + ".corrupt")
    }

    /// Makes the folders of `path`, the last one 0700.
    private func makeFolders() {
        var folder = ""
        let parts = path.split(separator: "/", omittingEmptySubsequences: false).dropLast()
        for (index, part) in parts.enumerated() where !part.isEmpty || index == 0 {
            folder += index == 0 ? String(part) : "/" + part
            if !folder.isEmpty { _ = mkdir(folder, index == parts.count - 1 ? 0o700 : 0o755) }
        }
    }
}

/// One line on standard error (the journal, under systemd), unbuffered.
func logLine(_ line: String) {
    let bytes = Array(("tocsin service: " + line + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
}
