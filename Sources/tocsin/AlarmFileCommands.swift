import ArgumentParser
import Glibc
import Tocsin
import TocsinBase
import TocsinCLI
import TocsinService

/// The text at the top of an exported file (the same in every export, so
/// that an export of what was imported gives the same text).
private let header = """
    Tocsin alarms (tocsin export). tocsin import FILE adds them; --replace makes them the service's alarms.
    A line: every SPEC LABEL, at TIME LABEL or countdown TIME-LEFT LABEL, then name=value settings
    (see share/doc/tocsin/alarms-file.md). Lines starting with # are comments.
    """

struct Export: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write the timer service's alarms to a file (or standard output) that tocsin import reads back.",
        discussion: """
            One alarm per line: its kind (every, at), its time (a calendar spec, or a wall time with its \
            UTC offset), its label, and the settings that are not the defaults (sound, volume, ring, \
            snooze, wake, notice, skips...). The file is plain text for a person to read, edit, keep \
            and sync; see share/doc/tocsin/alarms-file.md.
            """)

    @Argument(help: ArgumentHelp("The file (replaced as a whole); none or -: standard output.", valueName: "file"))
    var file: String?

    @Flag(help: "Countdowns too, with their time left.")
    var all = false

    func run() throws {
        let timers = try ServiceControl.connect().list()
        let text = AlarmFile(entries: timers.compactMap { AlarmFile.entry(of: $0, all: all) }).text(header: header)
        guard let file, file != "-" else { return print(text, terminator: "") }
        let failure = TimerFile.writeAtomicallyReportingErrno(Array(text.utf8), to: file)
        if failure != 0 { throw CommandFailure(tr("cannot write {file}: {reason}", ["file": file, "reason": String(cString: strerror(failure))])) }
    }
}

struct Import: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Add the alarms of a file tocsin export wrote (or a person did): all of them, or none if a line is wrong.",
        discussion: """
            Every line is checked first; a mistake is one error naming its line and column, and nothing \
            is imported. With --replace the service's alarms are then exactly the file's: those it had \
            before are removed once the file's are in (with --all its countdowns too).
            """)

    @Argument(help: ArgumentHelp("The file; -: standard input.", valueName: "file"))
    var file: String

    @Flag(help: "Remove the alarms the service had before (after the file's are in).")
    var replace = false

    @Flag(help: "With --replace: remove its countdowns too.")
    var all = false

    @Flag(help: "Import the shell commands of exec= settings too (the service runs them as you: a file from elsewhere may hold anything).")
    var allowExec = false

    func validate() throws {
        if all && !replace { throw ValidationError(tr("--all is for --replace: it removes the countdowns too")) }
    }

    func run() throws {
        let text: String
        do throws(TocsinError) {
            text = String(decoding: try file == "-" ? Self.stream(0) : Self.read(file), as: UTF8.self)
        } catch {
            let reason = error == .io ? String(cString: strerror(errno)) : tr("larger than a file of alarms can be")
            throw CommandFailure(tr("cannot read {file}: {reason}", ["file": file, "reason": reason]))
        }
        let parsed: AlarmFile
        do throws(AlarmFile.Mistake) {
            parsed = try AlarmFile.parse(text, now: Int64(Glibc.time(nil)))
        } catch {
            throw CommandFailure(tr("{place}: {error}; nothing was imported", ["place": "\(file):\(error.line):\(error.column)", "error": error.message]))
        }
        // A synced or downloaded file is data; a command in it would run as
        // the user: only when asked for, and each is said.
        if let entry = parsed.entries.first(where: { $0.command != nil }), !allowExec {
            throw CommandFailure(tr("{place}: exec=\"{command}\" is a command the service would run as you: add --allow-exec to import it; nothing was imported",
                                    ["place": "\(file):\(entry.line)", "command": entry.command ?? ""]))
        }
        for entry in parsed.entries {
            if let command = entry.command {
                Descriptor.complain(tr("{label}: runs {command}", ["label": entry.label, "command": command]))
            }
        }
        let client = try ServiceControl.connect()
        let kinds: Set<TimerService.Kind> = all ? [.alarm, .calendar, .countdown] : [.alarm, .calendar]
        let before = replace ? try client.list().filter { $0.kind.map(kinds.contains) == true } : []
        var added: [UInt64] = []
        for entry in parsed.entries {
            do throws(ServiceClient.Failure) {
                try Self.add(entry, on: client, into: &added)
            } catch {
                for id in added.reversed() { _ = try? client.control("Remove", id) }
                throw CommandFailure(tr("{place}: {error}; nothing was imported", ["place": "\(file):\(entry.line)", "error": error.message]))
            }
        }
        for timer in before { try client.control("Remove", timer.id) }
        let count = parsed.entries.count
        Descriptor.say(replace ? trn("Imported {count} alarm, removed {removed}", "Imported {count} alarms, removed {removed}", count,
                                     ["removed": String(before.count)])
                               : trn("Imported {count} alarm", "Imported {count} alarms", count))
    }

    /// Standard input, to its end.
    /// A file's bytes, read to its end through one descriptor: a regular
    /// file, or anything else that can be read (a pipe: `import <(…)`, a
    /// FIFO, `/dev/null`). A folder is `EISDIR`.
    static func read(_ path: String) throws(TocsinError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .io }
        defer { close(fd) }  // (a close that succeeds leaves errno alone)
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw .io }
        guard info.st_mode & mode_t(S_IFMT) != mode_t(S_IFDIR) else {
            errno = EISDIR
            throw .io
        }
        return try stream(fd)
    }

    /// What `fd` gives to its end (at most a timer file's largest).
    static func stream(_ fd: Int32) throws(TocsinError) -> [UInt8] {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { throw .io }
            guard count > 0 else { return bytes }
            bytes += buffer[..<count]
            guard bytes.count <= TimerFile.maxBytes else { throw .corrupt }
        }
    }

    /// Adds one entry, as its line says (paused, off, skipped), noting
    /// its id as soon as it exists.
    static func add(_ entry: AlarmFile.Entry, on client: ServiceClient, into added: inout [UInt64]) throws(ServiceClient.Failure) {
        var options: [(String, ServiceValue)] = entry.settings.serviceOptions + [("start", .flag(entry.state != .off))]
        let seconds: Double
        switch entry.kind {
        case .every:
            options += [("calendar", .text(entry.spec)), ("wake", .flag(entry.wake))]
            if let until = entry.skipUntil { options.append(("skip_until", .number(Double(until)))) }
            seconds = 0
        case .at:
            options += [("kind", .text("alarm")), ("wake", .flag(entry.wake))]
            seconds = Double(entry.time)
        case .countdown:
            seconds = Nanos.seconds(entry.time)
        }
        if let command = entry.command { options.append(("exec", .text(command))) }
        let id = try client.add(label: entry.label, seconds: seconds, options: options)
        added.append(id)
        if entry.state == .paused { try client.control("Pause", id) }
    }
}
