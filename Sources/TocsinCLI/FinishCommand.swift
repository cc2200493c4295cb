import Glibc

/// `--exec CMD`: runs `/bin/sh -c CMD` when a timer finishes, with
/// TOCSIN_LABEL and TOCSIN_ELAPSED (seconds) in its environment, and waits
/// for it. Its exit status does not change the command's.
struct FinishCommand {
    let command: String

    /// Runs it; false if it could not be started.
    @discardableResult
    func run(label: String, elapsedNanoseconds: Int64) -> Bool {
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
        guard posix_spawn(&pid, "/bin/sh", nil, &attributes, &cArguments, &cEnvironment) == 0 else { return false }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return true
    }
}

/// "1500", "0.5", "2.25": seconds without trailing zeros.
func formatSeconds(_ nanoseconds: Int64) -> String {
    let whole = nanoseconds / 1_000_000_000
    var fraction = String(nanoseconds % 1_000_000_000)
    guard fraction != "0" else { return "\(whole)" }
    fraction = String(repeating: "0", count: 9 - fraction.count) + fraction
    while fraction.hasSuffix("0") { fraction.removeLast() }
    return "\(whole).\(fraction)"
}
