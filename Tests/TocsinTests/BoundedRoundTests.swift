import Glibc
import Synchronization
import Testing
@testable import Tocsin

/// tocsin.h, BOUNDED ROUNDS, from Swift: a 1 ns tick asks for a billion
/// ticks a second; each round delivers `TimerEngine.tickBurst` one by one
/// and folds the rest, numbered exactly, and other calls get in.
@Suite struct BoundedRoundTests {
    /// Adds up a timer's ticks as they come.
    final class Tally: Sendable {
        struct Counts {
            var events = 0, ticks = 0, folded = 0, lastTick: UInt64 = 0, accounted: UInt64 = 0
            var outOfOrder = 0, drifted = 0, canceled = false, ticksAfterCancel = 0
        }
        let counts = Mutex(Counts())
        let interval: Duration

        init(interval: Duration) { self.interval = interval }

        var handler: @Sendable (TimerEvent) -> Void {
            { event in
                self.counts.withLock { c in
                    c.events += 1
                    if event.kind == .stateChange, event.state == .canceled { c.canceled = true }
                    guard event.kind == .tick else { return }
                    if c.canceled { c.ticksAfterCancel += 1 }
                    if event.tick <= c.lastTick { c.outOfOrder += 1 }
                    if event.elapsed != self.interval * Int(event.tick) { c.drifted += 1 }
                    c.ticks += 1
                    c.lastTick = event.tick
                    c.accounted += 1 + event.missed
                    if event.missed > 0 { c.folded += 1 }
                }
            }
        }

        var now: Counts { counts.withLock { $0 } }

        /// Every tick delivered or counted as missed, in order, none off its time.
        var numberedRight: Bool {
            let c = now
            return c.outOfOrder == 0 && c.drifted == 0 && c.accounted == c.lastTick
        }
    }

    /// A stopwatch ticking every nanosecond, started, and its tally.
    static func ticker(on engine: TimerEngine) throws -> (TimerID, Tally) {
        let tally = Tally(interval: .nanoseconds(1))
        let watch = try engine.stopwatch()
        try engine.setHandler(for: watch, tally.handler)
        try engine.setTickInterval(.nanoseconds(1), for: watch)
        try engine.start(watch)
        return (watch, tally)
    }

    @Test func aManualSecondOf1nsTicksIsOneBurstAndOneFold() throws {
        let engine = try TimerEngine(delivery: .manualClock)
        defer { engine.close() }
        let tally = Tally(interval: .nanoseconds(1))
        let timer = try engine.countdown(.seconds(30))
        try engine.setHandler(for: timer, tally.handler)
        try engine.setTickInterval(.nanoseconds(1), for: timer)
        try engine.start(timer)
        #expect(try engine.advance(by: .seconds(1)) == 1 + TimerEngine.tickBurst + 1)
        #expect(tally.now.lastTick == 1_000_000_000 && tally.now.folded == 1)
        #expect(tally.numberedRight)
        #expect(try engine.advance(by: .microseconds(1)) == 1000)  // under the burst: one by one
        #expect(tally.now.lastTick == 1_000_001_000 && tally.now.folded == 1)
        #expect(tally.numberedRight)
    }

    @Test func aPolledHostKeepsTurningAndItsCancelGetsIn() throws {
        let engine = try TimerEngine(delivery: .polled)
        defer { engine.close() }
        let (watch, tally) = try Self.ticker(on: engine)
        var poller = pollfd(fd: try engine.pollFileDescriptor(), events: Int16(POLLIN), revents: 0)
        for _ in 0..<20 {
            #expect(poll(&poller, 1, 5000) == 1)
            #expect(try engine.dispatch() <= TimerEngine.tickBurst + 2)
        }
        #expect(tally.now.folded > 0 && tally.numberedRight)
        try engine.cancel(watch)
        while poll(&poller, 1, 0) == 1, try engine.dispatch() > 0 {}
        #expect(tally.now.canceled && tally.now.ticksAfterCancel == 0)
    }

    @Test func anotherThreadCancelsA1nsTickerOnTheEngineThread() throws {
        let engine = try TimerEngine(delivery: .engineThread)
        defer { engine.close() }
        let (watch, tally) = try Self.ticker(on: engine)
        // Past a burst, so that it has folded (however slow the machine:
        // ThreadSanitizer's run took 100 ms to deliver fewer).
        #expect(waitUntil { tally.now.ticks > 2 * TimerEngine.tickBurst })
        try engine.cancel(watch)  // returns: no tick of this run comes after it
        let ticksAtCancel = tally.now.ticks
        #expect(waitUntil { tally.now.canceled })
        #expect(tally.now.ticks == ticksAtCancel && tally.now.ticksAfterCancel == 0)
        #expect(tally.now.lastTick > UInt64(TimerEngine.tickBurst) && tally.numberedRight)
    }

    @Test func aSmallerBudgetFoldsSoonerForTheModel() throws {
        let engine = try TimerEngine(delivery: .manualClock)
        defer { engine.close() }
        engine.setTickBurst(3)
        let tally = Tally(interval: .milliseconds(100))
        let watch = try engine.stopwatch()
        try engine.setHandler(for: watch, tally.handler)
        try engine.setTickInterval(.milliseconds(100), for: watch)
        try engine.start(watch)
        #expect(try engine.advance(by: .seconds(1)) == 1 + 3 + 1)  // ticks 1, 2, 3, then 10 (6 missed)
        #expect(tally.now.lastTick == 10 && tally.numberedRight)
    }
}
