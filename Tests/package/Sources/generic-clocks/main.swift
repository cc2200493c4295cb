// Tocsin's clocks where any Clock is taken: Task.sleep(for:clock:),
// swift-async-algorithms' AsyncTimerSequence and debounce.
import AsyncAlgorithms
import Glibc
import Tocsin

func check(_ passed: Bool, _ what: String) {
    print(passed ? "ok: \(what)" : "FAILED: \(what)")
    if !passed { exit(1) }
}

// Task.sleep on each real clock, through the static members.
let boot = BootClock()
var start = boot.now
try await Task.sleep(for: .milliseconds(20), clock: .boot)
try await Task.sleep(for: .milliseconds(20), tolerance: .milliseconds(5), clock: .awake)
try await Task.sleep(until: WallClock().now.advanced(by: .milliseconds(20)), clock: .wall)
check(start.duration(to: boot.now) >= .milliseconds(60), "Task.sleep on .boot, .awake and .wall")

// AsyncTimerSequence on ManualClock: one awaited advance of 3 s gives its
// 3 ticks, the sequence's task running between them.
let manual = ManualClock()
let ticks = Task {
    var seen: [Duration] = []
    for await instant in AsyncTimerSequence.repeating(every: .seconds(1), clock: manual) {
        seen.append(instant.offset)
        if seen.count == 3 { break }
    }
    return seen
}
await manual.waitForSleepers(1)
try await manual.advance(by: .seconds(3))
check(await ticks.value == [.seconds(1), .seconds(2), .seconds(3)], "AsyncTimerSequence on ManualClock")

// The same on BootClock, for real.
start = boot.now
var realTicks = 0
for await _ in AsyncTimerSequence.repeating(every: .milliseconds(30), tolerance: .milliseconds(10), clock: boot) {
    realTicks += 1
    if realTicks == 3 { break }
}
check(start.duration(to: boot.now) >= .milliseconds(90), "AsyncTimerSequence on BootClock")

// debounce on ManualClock: a value comes out a second of this clock after
// it went in. (One value: with a burst, when the debounce's own task takes
// the last one is not the test's to know, and a clock moved on before then
// lets an earlier one out, as a slow consumer would in real time.) The
// clock moves on only while the debounce sleeps, until it gives the value.
actor Seen {
    var values: [(String, Duration)] = []
    func add(_ value: String, at time: Duration) { values.append((value, time)) }
}
let debounced = ManualClock()
let input = AsyncChannel<String>()
let seen = Seen()
let output = Task {
    for await value in input.debounce(for: .seconds(1), clock: debounced) { await seen.add(value, at: debounced.now.offset) }
}
await input.send("a")
let giveUp = boot.now.advanced(by: .seconds(30))
while await seen.values.isEmpty {
    if boot.now >= giveUp { check(false, "debounce(for:clock:) on ManualClock gave its value within 30 s") }
    if debounced.sleepers > 0 { try debounced.advanceWithoutWaiting(by: .milliseconds(100)) } else { await Task.yield() }
}
input.finish()
await output.value
let values = await seen.values
check(values.map(\.0) == ["a"] && values[0].1 == .seconds(1), "debounce(for:clock:) on ManualClock")
