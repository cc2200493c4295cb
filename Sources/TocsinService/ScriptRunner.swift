import CGio
import CTocsinService
import Glibc

/// Runs the service's commands (a timer's `exec`, a hook file) without its
/// thread ever waiting on one: each starts in a process group of its own,
/// reads its event from a memfd, and writes into a pipe the main loop
/// drains a bounded amount per turn into the service's log; its end comes
/// from a GLib child watch, and one that runs past `limits.time` is sent
/// SIGTERM, then SIGKILL. At most `limits.running` run at once; the rest
/// wait their turn in order. Main-loop thread only.
final class ScriptRunner {
    /// One command to run.
    struct Run {
        /// Names the run in `ended` (never 0).
        let token: UInt64
        /// How the log names it: "timer 3 (Tea): the finish command".
        let name: String
        let path: String
        let arguments: [String]
        /// "NAME=value" strings, besides the service's own environment.
        let environment: [String: String]
        /// Its standard input.
        let input: [UInt8]
    }

    struct Limits {
        /// Seconds a command may run before it is stopped.
        var time = 60.0
        /// Commands running at once.
        var running = 8
        /// Bytes of one command's output written to the log; the rest is
        /// read and counted, not kept (a command that floods its output
        /// cannot flood the journal).
        var loggedBytes = 16384
        /// Seconds between SIGTERM and SIGKILL.
        var killGrace = 3.0
        /// Bytes read from one command's output per turn of the loop.
        static let readBytes = 65536
    }

    var limits = Limits()
    /// Called when a run is over, whatever its end (it ran, failed, was
    /// killed, or could not start): it is not run again by this runner.
    var ended: (UInt64) -> Void = { _ in }
    /// Where lines go (the service's log; tests may collect them).
    var log: (String) -> Void = { logLine($0) }

    private var waiting: [Run] = []
    private var nextWaiting = 0
    private var running: [UInt64: Running] = [:]
    /// Runs that could not start, told to `ended` on the next turn (never
    /// from inside `submit`: its caller has not finished with them).
    private var failed: [UInt64] = []
    private lazy var failureReports = IdleWork { [unowned self] in
        let tokens = failed
        failed = []
        for token in tokens { ended(token) }
    }

    /// True while a command runs or waits to.
    var isBusy: Bool { !running.isEmpty || nextWaiting < waiting.count }

    /// Runs `run` now if fewer than `limits.running` run, else after those.
    func submit(_ run: Run) {
        waiting.append(run)
        startWaiting()
    }

    private func startWaiting() {
        while running.count < limits.running, nextWaiting < waiting.count {
            let run = waiting[nextWaiting]
            nextWaiting += 1
            start(run)
        }
        if nextWaiting == waiting.count {
            waiting.removeAll(keepingCapacity: waiting.count < 64)
            nextWaiting = 0
        } else if nextWaiting >= 64 && nextWaiting * 2 >= waiting.count {  // (a queue never empty: started ones let go)
            waiting.removeFirst(nextWaiting)
            nextWaiting = 0
        }
    }

    /// A command under way: its process, its output's pipe, and the loop's sources watching them.
    private final class Running {
        let run: Run
        let pid: pid_t
        var output: Int32
        let started = g_get_monotonic_time()
        /// The loop's sources still active (0: none, or it ended by itself).
        var outputSource: guint = 0
        var limitSource: guint = 0
        var partial: [UInt8] = []
        var logged = 0
        var dropped = 0
        var stopping = false
        init(run: Run, pid: pid_t, output: Int32) {
            self.run = run
            self.pid = pid
            self.output = output
        }
    }

    /// What a GLib source's callback finds its run by (released by the
    /// source's destroy notify: never dangling).
    /// The process group a kill waits for.
    private final class GroupKill {
        let group: pid_t
        init(_ group: pid_t) { self.group = group }
    }

    private final class Handle {
        weak var runner: ScriptRunner?
        let token: UInt64
        init(_ runner: ScriptRunner, _ token: UInt64) {
            self.runner = runner
            self.token = token
        }
        var retained: UnsafeMutableRawPointer { Unmanaged.passRetained(self).toOpaque() }
        static func from(_ raw: UnsafeMutableRawPointer?) -> Handle? {
            raw.map { Unmanaged<Handle>.fromOpaque($0).takeUnretainedValue() }
        }
        static let release: GDestroyNotify = { raw in if let raw { Unmanaged<Handle>.fromOpaque(raw).release() } }
    }

    private func start(_ run: Run) {
        var environment: [String: String] = [:]
        var entry = environ
        while let pointer = entry.pointee {
            let variable = String(cString: pointer)
            // (Not the service's own: its TOCSIN_ settings, and systemd's
            // notify socket and watchdog, which would take the command's word for the service's.)
            if let equals = variable.firstIndex(of: "="), !variable.hasPrefix("TOCSIN_"), !variable.hasPrefix("NOTIFY_SOCKET="),
               !variable.hasPrefix("WATCHDOG_") {
                environment[String(variable[..<equals])] = String(variable[variable.index(after: equals)...])
            }
            entry += 1
        }
        environment.merge(run.environment) { _, ours in ours }
        // In the home folder; where there is none, at the root (a folder
        // that cannot be entered would keep it from starting at all).
        let home = environment["HOME"].flatMap { $0.hasPrefix("/") && access($0, X_OK) == 0 ? $0 : nil } ?? "/"
        let input = run.input.withUnsafeBytes { tocsin_service_input_file($0.baseAddress, $0.count) }
        guard input >= 0 else { return cannotStart(run, errno) }
        defer { close(input) }
        var pipe: [Int32] = [-1, -1]
        let pipeFailure = tocsin_service_output_pipe(&pipe)
        guard pipeFailure == 0 else { return cannotStart(run, pipeFailure) }
        var pid = pid_t()
        let arguments = ([run.path] + run.arguments).map { strdup($0) } + [nil]
        let variables = environment.sorted { $0.key < $1.key }.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            arguments.forEach { free($0) }
            variables.forEach { free($0) }
        }
        let failure = tocsin_service_spawn(run.path, arguments, variables, home, input, pipe[1], &pid)
        close(pipe[1])
        guard failure == 0 else {
            close(pipe[0])
            return cannotStart(run, failure)
        }
        let process = Running(run: run, pid: pid, output: pipe[0])
        running[run.token] = process
        let handle = Handle(self, run.token)
        // (One-shot: gone once it has fired.)
        g_child_watch_add_full(G_PRIORITY_DEFAULT, pid, { _, status, raw in
            guard let handle = Handle.from(raw), let runner = handle.runner else { return }
            runner.exited(handle.token, status: status)
        }, handle.retained, Handle.release)
        process.outputSource = g_unix_fd_add_full(G_PRIORITY_LOW, pipe[0], GIOCondition(rawValue: G_IO_IN.rawValue | G_IO_HUP.rawValue | G_IO_ERR.rawValue), { _, _, raw in
            guard let handle = Handle.from(raw), let runner = handle.runner else { return 0 }
            return runner.readOutput(handle.token) ? 1 : 0
        }, handle.retained, Handle.release)
        process.limitSource = g_timeout_add_full(G_PRIORITY_DEFAULT, Self.milliseconds(limits.time), { raw in
            guard let handle = Handle.from(raw), let runner = handle.runner else { return 0 }
            runner.overTime(handle.token)
            return 0
        }, handle.retained, Handle.release)
    }

    private func cannotStart(_ run: Run, _ failure: Int32) {
        log("\(run.name) could not start: \(String(cString: strerror(failure))) (not tried again)")
        failed.append(run.token)
        failureReports.schedule()
    }

    /// Reads what the command wrote (one bounded read); false at its end.
    private func readOutput(_ token: UInt64) -> Bool {
        guard let process = running[token], process.output >= 0 else { return false }
        var buffer = [UInt8](repeating: 0, count: Limits.readBytes)
        let count = buffer.withUnsafeMutableBytes { read(process.output, $0.baseAddress, $0.count) }
        if count < 0 && (errno == EAGAIN || errno == EINTR) { return true }
        guard count > 0 else {
            process.outputSource = 0  // (ended by returning false)
            closeOutput(process)
            return false
        }
        take(buffer[..<count], of: process)
        return true
    }

    /// Logs `bytes`' whole lines (the rest waits for its end), up to the limit.
    private func take(_ bytes: ArraySlice<UInt8>, of process: Running) {
        for byte in bytes {
            if byte == UInt8(ascii: "\n") {
                logOutputLine(process)
            } else if process.partial.count < 1024 {
                process.partial.append(byte)
            } else {
                process.dropped += 1  // (a line past 1 KiB: its rest)
            }
        }
    }

    private func logOutputLine(_ process: Running) {
        let line = process.partial
        process.partial.removeAll(keepingCapacity: true)
        if process.logged + line.count + 1 > limits.loggedBytes {
            process.dropped += line.count + 1
            return
        }
        process.logged += line.count + 1
        log("\(process.run.name): \(String(decoding: line, as: UTF8.self))")
    }

    private func closeOutput(_ process: Running) {
        guard process.output >= 0 else { return }
        if !process.partial.isEmpty { logOutputLine(process) }
        close(process.output)
        process.output = -1
    }

    private func overTime(_ token: UInt64) {
        guard let process = running[token], !process.stopping else { return }
        process.limitSource = 0  // (ended by returning 0)
        process.stopping = true
        log("\(process.run.name) ran past its limit of \(Self.seconds(limits.time)): stopped (SIGTERM, then SIGKILL after \(Self.seconds(limits.killGrace)))")
        _ = tocsin_service_signal_group(process.pid, SIGTERM)
        // By the group alone, even once the command itself has ended (what
        // it started may outlive SIGTERM): the group's id is not reused
        // while one of them is alive.
        let group = GroupKill(process.pid)
        g_timeout_add_full(G_PRIORITY_DEFAULT, Self.milliseconds(limits.killGrace), { raw in
            if let raw { _ = tocsin_service_signal_group(Unmanaged<GroupKill>.fromOpaque(raw).takeUnretainedValue().group, SIGKILL) }
            return 0
        }, Unmanaged.passRetained(group).toOpaque(), { raw in if let raw { Unmanaged<GroupKill>.fromOpaque(raw).release() } })
    }

    private func exited(_ token: UInt64, status: Int32) {
        guard let process = running.removeValue(forKey: token) else { return }
        // What it wrote before it ended (one read more); what it started
        // and left running may hold the pipe open: not waited for.
        if process.output >= 0 {
            var buffer = [UInt8](repeating: 0, count: Limits.readBytes)
            let count = buffer.withUnsafeMutableBytes { read(process.output, $0.baseAddress, $0.count) }
            if count > 0 { take(buffer[..<count], of: process) }
            closeOutput(process)
        }
        for source in [process.outputSource, process.limitSource] where source != 0 {
            g_source_remove(source)
        }
        let took = Double(g_get_monotonic_time() - process.started) / 1e6
        let signal = status & 0x7F
        let code = (status >> 8) & 0xFF
        let how = signal != 0 ? "was killed by signal \(signal)" : code == 0 ? "ran" : "exited with status \(code)"
        let extra = process.dropped > 0 ? "; \(process.dropped) more bytes of its output not logged" : ""
        log("\(process.run.name) \(how) (\(Self.seconds(took, digits: 2)))\(extra)")
        ended(token)
        startWaiting()
    }

    private static func milliseconds(_ seconds: Double) -> guint { guint(clamping: Int64(max(0, min(seconds, 86400)) * 1000)) }

    private static func seconds(_ value: Double, digits: Int = 0) -> String {
        guard digits > 0 else { return "\(Int64(value.rounded())) s" }
        let hundredths = Int64((value * 100).rounded())
        let fraction = String(hundredths % 100)
        return "\(hundredths / 100).\(fraction.count < 2 ? "0" + fraction : fraction) s"
    }
}
