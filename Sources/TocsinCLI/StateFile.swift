import TocsinBase
import Glibc
public import Tocsin

/// The `--state` file: every timer of the engine, written atomically after
/// each change (the format of `tocsin_engine_save`), so that a crash or a
/// full disk leaves the last whole state. A write that fails is said once on
/// standard error, with the system's reason, until one succeeds again: the
/// timers run on regardless.
public final class StateFile {
    let path: String
    private var failing = false

    init(path: String) {
        self.path = path
    }

    /// Writes the engine's timers; true if the file now holds them.
    @discardableResult
    func save(_ engine: TimerEngine) -> Bool {
        let reason = write(engine)
        if let reason, !failing {
            Descriptor.complain("tocsin: cannot write \(path): \(reason); the timers run on, and the file "
                + "keeps what it last held")
        }
        failing = reason != nil
        return !failing
    }

    /// Writes the engine's timers; nil, or why they could not be written.
    func write(_ engine: TimerEngine) -> String? {
        do throws(TocsinError) {
            let document = try engine.savedDocument()
            let failure = TimerFile.writeAtomicallyReportingErrno(document.encodedFile(), to: path)
            return failure == 0 ? nil : String(cString: strerror(failure))
        } catch {
            return error.description
        }
    }

    /// Why the timer file at `path` could not be loaded, in a person's words:
    /// the system's reason for a file that cannot be read, "not a timer
    /// file" for one that is something else.
    public static func reason(_ error: TocsinError, reading path: String) -> String {
        guard error == .io else { return error == .corrupt ? "not a timer file (or one from a newer tocsin)" : error.description }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return String(cString: strerror(errno)) }
        defer { close(fd) }
        var info = stat()
        if fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFDIR { return String(cString: strerror(EISDIR)) }
        return error.description
    }
}
