// clocks-bench sleeps CLOCK N SPREAD_MS   N concurrent Task.sleeps, deadlines
//                                          spread evenly at random over SPREAD_MS
// clocks-bench timers CLOCK N SECONDS     N AsyncTimerSequences ticking every
//                                          second, tolerance 1 s, for SECONDS
// CLOCK: boot (Tocsin's BootClock) or continuous (Swift's ContinuousClock).
// Prints one line of key=value: lateness percentiles in µs (sleeps), and the
// process's context switches (voluntary + involuntary, all threads:
// getrusage), the wake-ups it cost.
import AsyncAlgorithms
import Glibc
import Synchronization
import Tocsin

func contextSwitches() -> Int {
    var usage = rusage()
    getrusage(Int32(RUSAGE_SELF.rawValue), &usage)
    return usage.ru_nvcsw + usage.ru_nivcsw
}

func microseconds(_ duration: Duration) -> Double {
    let (seconds, attoseconds) = duration.components
    return Double(seconds) * 1e6 + Double(attoseconds) / 1e12
}

/// Lateness of each of `count` sleeps until `now + offset(i)`, in µs.
func sleeps<C: Clock>(_ clock: C, count: Int, spread: Duration) async throws -> [Double] where C.Duration == Duration {
    var generator = SystemRandomNumberGenerator()
    let spreadMicroseconds = Int64(microseconds(spread))
    let offsets = (0..<count).map { _ in Duration.microseconds(Int64.random(in: 0..<spreadMicroseconds, using: &generator)) }
    let start = clock.now.advanced(by: .milliseconds(100))  // all tasks made before the first is due
    return try await withThrowingTaskGroup(of: Double.self) { group in
        for offset in offsets {
            group.addTask {
                let deadline = start.advanced(by: offset)
                try await clock.sleep(until: deadline, tolerance: nil)
                return microseconds(deadline.duration(to: clock.now))
            }
        }
        var lateness: [Double] = []
        lateness.reserveCapacity(count)
        for try await value in group { lateness.append(value) }
        return lateness
    }
}

func timers<C: Clock>(_ clock: C, count: Int, seconds: Int) async where C.Duration == Duration {
    await withTaskGroup(of: Void.self) { group in
        for _ in 0..<count {
            group.addTask {
                var ticks = 0
                for await _ in AsyncTimerSequence(interval: .seconds(1), tolerance: .seconds(1), clock: clock) {
                    ticks += 1
                    if ticks == seconds { break }
                }
            }
        }
    }
}

func percentile(_ sorted: [Double], _ p: Double) -> Double {
    sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * p))]
}

let arguments = CommandLine.arguments
guard arguments.count == 5, let count = Int(arguments[3]), let amount = Int(arguments[4]),
      ["boot", "continuous"].contains(arguments[2]), ["sleeps", "timers"].contains(arguments[1]) else {
    print("usage: clocks-bench sleeps|timers boot|continuous N SPREAD_MS|SECONDS")
    exit(2)
}
let useBoot = arguments[2] == "boot"
let before = contextSwitches()
let began = ContinuousClock.now
if arguments[1] == "sleeps" {
    let spread = Duration.milliseconds(amount)
    var lateness = useBoot
        ? try await sleeps(BootClock(), count: count, spread: spread)
        : try await sleeps(ContinuousClock(), count: count, spread: spread)
    lateness.sort()
    let switches = contextSwitches() - before
    let (p50, p99, maximum) = (percentile(lateness, 0.5), percentile(lateness, 0.99), lateness.last ?? 0)
    print("p50_us=\(Int(p50.rounded())) p99_us=\(Int(p99.rounded())) max_us=\(Int(maximum.rounded())) switches=\(switches)")
} else {
    if useBoot { await timers(BootClock(), count: count, seconds: amount) }
    else { await timers(ContinuousClock(), count: count, seconds: amount) }
    let switches = contextSwitches() - before
    let elapsed = microseconds(began.duration(to: .now)) / 1e6
    print("switches_per_s=\(Int((Double(switches) / elapsed).rounded())) seconds=\(Int(elapsed.rounded()))")
}
