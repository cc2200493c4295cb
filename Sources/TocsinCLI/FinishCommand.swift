import Glibc
import TocsinBase

/// `--exec CMD`: runs `/bin/sh -c CMD` when a timer finishes, with
/// TOCSIN_LABEL and TOCSIN_ELAPSED (seconds) in its environment, and waits
/// for it. Its exit status does not change the command's, but a command
/// that fails is said on standard error (a typo in it would otherwise go
/// unnoticed until the timer that needed it).
struct FinishCommand {
    let command: String

    /// Runs it; nil if it exited 0, else what went wrong ("exited with
    /// status 127").
    func run(label: String, elapsedNanoseconds: Int64) -> String? {
        var environment: [String] = []
        var entry = environ
        while let pointer = entry.pointee {
            let variable = String(cString: pointer)
            if !variable.hasPrefix("TOCSIN_LABEL=") && !variable.hasPrefix("TOCSIN_ELAPSED=") {
                environment.append(variable)
            }
            entry += 1
        }
        environment.append("TOCSIN_LABEL=\(label)")
        environment.append("TOCSIN_ELAPSED=\(formatSeconds(elapsedNanoseconds))")
        let arguments = ["/bin/sh", "-c", command]
        var cArguments = arguments.map { strdup($0) } + [nil]
        var cEnvironment = environment.map { strdup($0) } + [nil]
        defer {
            cArguments.forEach { free($0) }
            cEnvironment.forEach { free($0) }
        }
        // The command gets a clean signal mask: the loop blocks SIGINT & co.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
        var pid = pid_t()
        let spawned = posix_spawn(&pid, "/bin/sh", nil, &attributes, &cArguments, &cEnvironment)
        guard spawned == 0 else { return tr("could not start /bin/sh: {reason}", ["reason": String(cString: strerror(spawned))]) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let signal = status & 0x7F
        if signal != 0 { return tr("was killed by signal {signal}", ["signal": String(signal)]) }
        let code = (status >> 8) & 0xFF
        return code == 0 ? nil : tr("exited with status {status}", ["status": String(code)])
    }
}

/// "1500", "0.5", "2.25": seconds without trailing zeros.
func formatSeconds(_ nanoseconds: Int64) -> String {
    let whole = nanoseconds / Nanos.perSecond
    var fraction = String(nanoseconds % Nanos.perSecond)
    guard fraction != "0" else { return "\(whole)" }
    fraction = String(repeating: "0", count: 9 - fraction.count) + fraction
    while fraction.hasSuffix("0") { fraction.removeLast() }
    return "\(whole).\(fraction)"
}
