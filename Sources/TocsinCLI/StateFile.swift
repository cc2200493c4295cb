import Glibc
import Tocsin

/// The `--state` file: every timer of the engine, written atomically after
/// each change (the format of `tocsin_engine_save`), so that a crash or a
/// full disk leaves the last whole state. A write that fails is said once on
/// standard error, with the system's reason, until one succeeds again: the
/// timers run on regardless.
final class StateFile {
    let path: String
    private var failing = false

    init(path: String) {
        self.path = path
    }

    /// Writes the engine's timers; true if the file now holds them.
    @discardableResult
    func save(_ engine: TimerEngine) -> Bool {
        var failure: Int32 = 0
        var reason = ""
        do throws(TocsinError) {
            let document = try engine.savedDocument()
            failure = TimerFile.writeAtomicallyReportingErrno(Array((document.encoded() + "\n").utf8), to: path)
            reason = failure == 0 ? "" : String(cString: strerror(failure))
        } catch {
            failure = -1
            reason = error.description
        }
        if failure != 0 && !failing {
            FileHandleLine.standardError("tocsin: cannot write \(path): \(reason); the timers run on, and the file "
                + "keeps what it last held")
        }
        failing = failure != 0
        return !failing
    }
}
