// The bench workloads on DispatchSourceTimer, printing the same key=value
// lines as bench/oneshot.c and bench/workloads.c (engine=dispatch):
//   dispatch-bench oneshot N SEED | ticks | idle | contention | leeway LEEWAY_MS [SECONDS]
import Dispatch
import Foundation
import Glibc

func nowNs() -> Int64 {
    var t = timespec()
    clock_gettime(CLOCK_MONOTONIC, &t)
    return Int64(t.tv_sec) * 1_000_000_000 + Int64(t.tv_nsec)
}

func rssKB() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
          let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") })
    else { return 0 }
    return Int(line.split(separator: " ")[1]) ?? 0
}

func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
        + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

func percentile(_ values: [Int64], _ p: Double) -> Int64 {
    let sorted = values.sorted()
    return sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
}

/// Lock-protected results written from Dispatch's threads.
final class Record: @unchecked Sendable {
    let lock = NSLock()
    var lateness: [Int64]
    var early = 0
    var fired = 0
    let done = DispatchSemaphore(value: 0)
    init(count: Int) { lateness = Array(repeating: 0, count: count) }
}

func oneshot(n: Int, seed: UInt64) {
    var rng = seed &* 2_654_435_761 &+ 1
    func uniform() -> Double {
        rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17
        return Double(rng >> 11) / Double(UInt64(1) << 53)
    }
    let offsets = (0..<n).map { _ in 0.5 + 2.0 * uniform() }
    let record = Record(count: n)
    var sources: [any DispatchSourceTimer] = []
    sources.reserveCapacity(n)
    let queue = DispatchQueue(label: "bench")
    let rss0 = rssKB()
    let cpu0 = cpuSeconds()
    var start = nowNs()
    for i in 0..<n {
        let source = DispatchSource.makeTimerSource(queue: queue)
        let deadline = nowNs() + Int64(offsets[i] * 1e9)
        source.schedule(deadline: .now() + .nanoseconds(Int(offsets[i] * 1e9)), leeway: .nanoseconds(0))
        source.setEventHandler {
            let late = nowNs() - deadline
            record.lock.lock()
            record.lateness[i] = late
            if late < 0 { record.early += 1 }
            record.fired += 1
            let all = record.fired == n
            record.lock.unlock()
            if all { record.done.signal() }
        }
        source.resume()
        sources.append(source)
    }
    let scheduleNs = (nowNs() - start) / Int64(n)
    let armedKB = rssKB()
    record.done.wait()
    for source in sources { source.cancel() }
    sources.removeAll(keepingCapacity: true)
    for _ in 0..<n {
        let source = DispatchSource.makeTimerSource(queue: queue)
        source.schedule(deadline: .now() + .seconds(60), leeway: .nanoseconds(0))
        source.setEventHandler {}
        source.resume()
        sources.append(source)
    }
    start = nowNs()
    for source in sources { source.cancel() }
    let cancelNs = (nowNs() - start) / Int64(n)
    print(String(
        format: "engine=dispatch n=%d schedule_ns=%lld cancel_ns=%lld late_p50_us=%.1f late_p99_us=%.1f late_max_us=%.1f early=%d bytes=%.0f cpu_s=%.2f",
        n, scheduleNs, cancelNs, Double(percentile(record.lateness, 0.5)) / 1e3,
        Double(percentile(record.lateness, 0.99)) / 1e3, Double(record.lateness.max()!) / 1e3, record.early,
        Double(armedKB - rss0) * 1024 / Double(n), cpuSeconds() - cpu0))
}

func ticks() {
    let count = 1000, period: Int64 = 10_000_000
    final class Ticks: @unchecked Sendable { var at: [Int64] = []; let done = DispatchSemaphore(value: 0) }
    let state = Ticks()
    let source = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "ticks"))
    source.schedule(deadline: .now() + .nanoseconds(Int(period)), repeating: .nanoseconds(Int(period)), leeway: .nanoseconds(0))
    let start = nowNs()
    source.setEventHandler {
        // After a stall Dispatch merges the ticks it missed into one call;
        // `data` says how many fell. Each counts as fired now, as Tocsin and
        // the floor deliver every tick: the same 1000 periods for every engine.
        let now = nowNs()
        for _ in 0..<min(max(1, Int(source.data)), count - state.at.count) { state.at.append(now) }
        if state.at.count == count { source.cancel(); state.done.signal() }
    }
    source.resume()
    state.done.wait()
    var late: [Int64] = [], jitter: [Int64] = []
    var previous = start
    for (k, at) in state.at.enumerated() {
        late.append(at - (start + Int64(k + 1) * period))
        jitter.append(abs(at - previous - period))
        previous = at
    }
    print(String(format: "workload=ticks engine=dispatch drift_ms=%.3f late_p99_us=%.1f jitter_p99_us=%.1f",
                 Double(late.last!) / 1e6, Double(percentile(late, 0.99)) / 1e3, Double(percentile(jitter, 0.99)) / 1e3))
}

/// Context switches of every thread of this process but the calling one.
func switches() -> Int {
    let me = ((try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self")) ?? "")
        .split(separator: "/").last.flatMap { Int($0) } ?? -1
    var total = 0
    for task in (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? [] where Int(task) != me {
        guard let status = try? String(contentsOfFile: "/proc/self/task/\(task)/status", encoding: .utf8) else { continue }
        for line in status.split(separator: "\n") where line.contains("ctxt_switches:") {
            total += Int(line.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) ?? 0
        }
    }
    return total
}

func sleepUntil(_ deadline: Int64) {
    var t = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
    while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, nil) != 0 {}
}

func idle() {
    let away: Int64 = 5_000_000_000
    let deadline = nowNs() + away
    final class Fired: @unchecked Sendable { var at: Int64 = 0; let done = DispatchSemaphore(value: 0) }
    let fired = Fired()
    let source = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "idle"))
    source.schedule(deadline: .now() + .nanoseconds(Int(deadline - nowNs())), leeway: .nanoseconds(0))
    source.setEventHandler { fired.at = nowNs(); fired.done.signal() }
    source.resume()
    let from = deadline - away + 100_000_000, to = deadline - 100_000_000
    sleepUntil(from)
    let before = switches()
    sleepUntil(to)
    let rate = Double(switches() - before) / (Double(to - from) / 1e9)
    fired.done.wait()
    print(String(format: "workload=idle engine=dispatch switches_per_s=%.2f late_us=%.1f", rate, Double(fired.at - deadline) / 1e3))
}

/// 100 DispatchSourceTimers repeating every second at scattered phases on
/// one serial queue, with `leeway`: bench/leeway.c's workload (same phases,
/// same window, same measures).
func leeway(milliseconds: Int, seconds: Double) {
    let timers = 100, second: Int64 = 1_000_000_000
    var phases: [Int64] = []
    srand(42)  // the C benchmark's phases
    for _ in 0..<timers { phases.append(Int64(rand() % 1000) * 1_000_000 + Int64(rand() % 1_000_000)) }
    phases.sort()
    let t0 = nowNs()
    let from = t0 + 5 * second / 2, to = from + Int64(seconds * 1e9)
    final class Samples: @unchecked Sendable {
        let lock = NSLock()
        var values: [Int64] = []
        var switchesInWindow = 0
    }
    let samples = Samples()
    let measurer = Thread {
        sleepUntil(from)
        let before = switches()
        sleepUntil(to)
        samples.switchesInWindow = switches() - before
    }
    measurer.start()
    let queue = DispatchQueue(label: "leeway")
    var sources: [any DispatchSourceTimer] = []
    for i in 0..<timers {
        sleepUntil(t0 + phases[i])
        let armedAt = nowNs()
        var tick: Int64 = 0
        let source = DispatchSource.makeTimerSource(queue: queue)
        source.schedule(deadline: .now() + .seconds(1), repeating: .seconds(1), leeway: .milliseconds(milliseconds))
        source.setEventHandler {
            tick += 1
            let now = nowNs()
            guard now >= from && now < to else { return }
            samples.lock.lock()
            samples.values.append(now - (armedAt + tick * second))
            samples.lock.unlock()
        }
        source.resume()
        sources.append(source)
    }
    sleepUntil(to + second / 5)
    for source in sources { source.cancel() }
    let values = samples.lock.withLock { samples.values.sorted() }
    guard !values.isEmpty else { print("dispatch-bench: no ticks"); exit(1) }
    print(String(format: "workload=leeway engine=dispatch-%d wakeups_per_s=%.2f ticks_per_s=%.1f late_p50_ms=%.3f late_p99_ms=%.3f late_max_ms=%.3f",
                 milliseconds, Double(samples.switchesInWindow) / seconds, Double(values.count) / seconds,
                 Double(values[values.count / 2]) / 1e6, Double(values[Int(Double(values.count) * 0.99)]) / 1e6,
                 Double(values[values.count - 1]) / 1e6))
}

func contention() {
    let threads = 4, pairs = 250_000
    let queue = DispatchQueue(label: "shared")
    let start = nowNs()
    DispatchQueue.concurrentPerform(iterations: threads) { _ in
        for i in 0..<pairs {
            let source = DispatchSource.makeTimerSource(queue: queue)
            source.schedule(deadline: .now() + .seconds(60 + i % 1024), leeway: .nanoseconds(0))
            source.setEventHandler {}
            source.resume()
            source.cancel()
        }
    }
    print(String(format: "workload=contention engine=dispatch mops=%.2f", Double(threads * pairs) / Double(nowNs() - start) * 1e3))
}

let arguments = CommandLine.arguments
switch arguments.count > 1 ? arguments[1] : "" {
case "oneshot" where arguments.count == 4: oneshot(n: Int(arguments[2])!, seed: UInt64(arguments[3])!)
case "ticks": ticks()
case "idle": idle()
case "contention": contention()
case "leeway":
    leeway(milliseconds: CommandLine.arguments.count > 2 ? Int(CommandLine.arguments[2]) ?? 0 : 0,
           seconds: CommandLine.arguments.count > 3 ? Double(CommandLine.arguments[3]) ?? 10 : 10)
default:
    FileHandle.standardError.write("usage: dispatch-bench oneshot N SEED | ticks | idle | contention | leeway MS [SECONDS]\n".data(using: .utf8)!)
    exit(2)
}
