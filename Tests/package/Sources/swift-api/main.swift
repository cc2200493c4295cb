// The Swift API's promises, from a package that depends on Tocsin: a
// cancelled wait throws CancellationError, two sequences of one timer each
// get every event, an AsyncTimerSequence of 1 s on ManualClock yields
// exactly 5 values in one advance of 5 s (50 times), calendar times are
// WallClock.Instants.
import AsyncAlgorithms
import Glibc
import Synchronization
import Tocsin

func check(_ passed: Bool, _ what: String) {
    print(passed ? "ok: \(what)" : "FAILED: \(what)")
    if !passed { exit(1) }
}

let engine = try TimerEngine(delivery: .manualClock)
let slow = try engine.countdown(.seconds(60))
try engine.setEventKinds([], for: slow)
try engine.start(slow)
let waiter = Task { try await engine.waitForFinish(of: slow) }
while try engine.eventKinds(of: slow).isEmpty { await Task.yield() }
waiter.cancel()
var cancelled = false
do { _ = try await waiter.value } catch is CancellationError { cancelled = true }
check(cancelled, "a cancelled waitForFinish throws CancellationError")

let tea = try engine.countdown(.seconds(2))
let first = try engine.events(for: tea)
let second = try engine.events(for: tea)
try engine.start(tea)
try engine.advance(by: .seconds(3))
var counts = [0, 0]
for await _ in first { counts[0] += 1 }
for await _ in second { counts[1] += 1 }
check(counts == [3, 3], "two sequences of one timer each get its 3 events (\(counts))")
engine.close()

var misses = 0
for _ in 0..<50 {
    let clock = ManualClock()
    let ticks = Atomic(0)
    let loop = Task {
        for await _ in AsyncTimerSequence(interval: .seconds(1), clock: clock) { ticks.add(1, ordering: .relaxed) }
    }
    await clock.waitForSleepers(1)
    try await clock.advance(by: .seconds(5))
    if ticks.load(ordering: .relaxed) != 5 { misses += 1 }
    loop.cancel()
}
check(misses == 0, "AsyncTimerSequence of 1 s: 5 values in advance(by: 5 s), 50 times (\(misses) missed)")

let mornings = try CalendarSpec("*-*-* 07:00 UTC")
let machine = ManualClock(wallClock: WallClock.Instant(offset: .seconds(1_798_804_800)))  // 2027-01-01 12:00 UTC
let next: WallClock.Instant? = mornings.next(after: machine.wall.now)
check(next == WallClock.Instant(offset: .seconds(1_798_873_200)), "a calendar's next 07:00 as a WallClock.Instant")
