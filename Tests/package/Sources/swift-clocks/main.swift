// What Swift's own clocks are on Linux, pinned (the README's "Using it from
// Swift" and BootClock's docs rely on it): ContinuousClock reads
// CLOCK_BOOTTIME and its sleeps arm a CLOCK_BOOTTIME timerfd, so it counts a
// suspend, as BootClock does; SuspendingClock reads CLOCK_MONOTONIC, as
// AwakeClock does. Run with Tests/package/shim/clock-trace.c preloaded,
// which tells which clock a clock_gettime call asked for.
import Glibc
import Tocsin

func check(_ passed: Bool, _ what: String) {
    print(passed ? "ok: \(what)" : "FAILED: \(what)")
    if !passed { exit(1) }
}

/// The clock id a reading asked clock_gettime for; nil without the shim.
func clockRead(by reading: () -> Void) -> Int32? {
    guard let trace = dlsym(nil, "clock_trace"),  // nil: RTLD_DEFAULT
          let asked = dlsym(nil, "clock_trace_asked") else { return nil }
    let traceOn = unsafeBitCast(trace, to: (@convention(c) (Int32) -> Void).self)
    let askedNow = unsafeBitCast(asked, to: (@convention(c) () -> Int32).self)
    traceOn(1)
    reading()
    let clock = askedNow()
    traceOn(0)
    return clock
}

/// The clock ids of this process's timerfds armed for between `hours` and
/// `hours` less 10 minutes from now (/proc/self/fdinfo) while `sleep`
/// sleeps `hours`, waiting up to 30 s for one (a busy machine may start the
/// task late). (Each check sleeps for a different time: a cancelled sleep
/// may leave its timer armed.)
func timerfdsArmed(forHours hours: Int, by sleep: @escaping @Sendable (Duration) async throws -> Void) -> [Int32] {
    let seconds = Double(hours * 3600)
    let task = Task { try await sleep(.seconds(hours * 3600)) }
    defer { task.cancel() }
    for _ in 0..<3000 {
        let clocks = timerfds().filter { $0.secondsLeft > seconds - 600 && $0.secondsLeft <= seconds }.map(\.clock)
        if !clocks.isEmpty { return clocks }
        usleep(10_000)  // not a Swift sleep: it would arm a timer of its own
    }
    return []
}

/// This process's timerfds: each one's clock id and seconds left.
func timerfds() -> [(clock: Int32, secondsLeft: Double)] {
    guard let directory = opendir("/proc/self/fd") else { return [] }
    defer { closedir(directory) }
    var found: [(Int32, Double)] = []
    while let entry = readdir(directory) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
        var target = [CChar](repeating: 0, count: 64)
        guard let fd = Int32(name), readlink("/proc/self/fd/\(fd)", &target, 63) > 0,
              String(cString: target) == "anon_inode:[timerfd]",
              let info = fopen("/proc/self/fdinfo/\(fd)", "r") else { continue }
        defer { fclose(info) }
        var clock: Int32 = -1
        var left = 0.0
        var line = [CChar](repeating: 0, count: 256)
        while fgets(&line, 256, info) != nil {
            let text = String(cString: line)
            let numbers = text.split { !$0.isNumber }.compactMap { Double($0) }
            if text.hasPrefix("clockid:"), let id = numbers.first { clock = Int32(id) }
            if text.hasPrefix("it_value:"), numbers.count >= 2 { left = numbers[0] + numbers[1] / 1e9 }
        }
        found.append((clock, left))
    }
    return found
}

guard clockRead(by: {}) != nil else {
    print("FAILED: run with Tests/package/shim/clock-trace.c preloaded (LD_PRELOAD)")
    exit(1)
}
check(clockRead { _ = ContinuousClock().now } == CLOCK_BOOTTIME, "ContinuousClock.now reads CLOCK_BOOTTIME")
check(clockRead { _ = SuspendingClock().now } == CLOCK_MONOTONIC, "SuspendingClock.now reads CLOCK_MONOTONIC")
check(clockRead { _ = BootClock().now } == CLOCK_BOOTTIME, "BootClock.now reads CLOCK_BOOTTIME")
check(clockRead { _ = AwakeClock().now } == CLOCK_MONOTONIC, "AwakeClock.now reads CLOCK_MONOTONIC")
check(clockRead { _ = WallClock().now } == CLOCK_REALTIME, "WallClock.now reads CLOCK_REALTIME")
let continuous = timerfdsArmed(forHours: 1) { try await Task.sleep(for: $0, clock: .continuous) }
check(continuous == [CLOCK_BOOTTIME], "an hour's ContinuousClock sleep arms a CLOCK_BOOTTIME timerfd (\(continuous))")
let boot = timerfdsArmed(forHours: 2) { try await Task.sleep(for: $0, clock: .boot) }
check(boot == [CLOCK_BOOTTIME], "2 hours' BootClock sleep arms a CLOCK_BOOTTIME timerfd (\(boot))")
