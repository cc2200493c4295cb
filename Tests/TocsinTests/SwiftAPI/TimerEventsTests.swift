import Testing
import Tocsin

@Suite struct TimerEventsTests {
    @Test func aCountdownsEventsEndAfterItFinishes() async throws {
        let engine = try TimerEngine(delivery: .manualClock)
        defer { engine.close() }
        let tea = try engine.countdown(.seconds(3))
        try engine.setTickInterval(.seconds(1), for: tea)
        let events = try engine.events(for: tea)
        try engine.start(tea)
        try engine.advance(by: .seconds(5))
        var seen: [String] = []
        for await event in events { seen.append("\(event.kind) \(event.state)") }
        #expect(seen == ["state running", "tick running", "tick running", "finish finished", "state finished"])
    }

    @Test func aCancelledTimersEventsEndWithTheCancel() async throws {
        let engine = try TimerEngine(delivery: .manualClock)
        defer { engine.close() }
        let tea = try engine.countdown(.seconds(3))
        let events = try engine.events(for: tea)
        try engine.start(tea)
        try engine.cancel(tea)
        try engine.advance(by: .seconds(5))
        var states: [TimerState] = []
        for await event in events { states.append(event.state) }
        #expect(states == [.running, .canceled])
    }

    @Test func freeingTheTimerOrSettingItsHandlerEndsTheSequence() async throws {
        let engine = try TimerEngine(delivery: .manualClock)
        defer { engine.close() }
        let tea = try engine.countdown(.seconds(3))
        let freed = try engine.events(for: tea)
        try engine.free(tea)
        var count = 0
        for await _ in freed { count += 1 }
        #expect(count == 0)
        let coffee = try engine.countdown(.seconds(3))
        let replaced = try engine.events(for: coffee)
        try engine.setHandler(for: coffee) { _ in }
        for await _ in replaced { count += 1 }
        #expect(count == 0)
    }

    @Test func aCalendarAlarmsSequenceGoesOnFromRingToRing() async throws {
        let engine = try TimerEngine(delivery: .manualClock)
        defer { engine.close() }
        try engine.setWallClock(.seconds(1_798_804_800))  // 2027-01-01 12:00:00 UTC
        let alarm = try engine.calendar("*:*:00/10 UTC")
        let events = try engine.events(for: alarm)
        try engine.start(alarm)
        try engine.advance(by: .seconds(35))
        var finishes = 0
        for await event in events {
            if event.kind == .finish { finishes += 1 }
            if finishes == 3 { break }
        }
        #expect(finishes == 3)
        #expect(try engine.state(of: alarm) == .running)
    }

    @Test func waitForFinishReturnsTheFinishOrSaysWhyNot() async throws {
        let engine = try TimerEngine(delivery: .engineThread)
        defer { engine.close() }
        let egg = try engine.countdown(.milliseconds(20))
        try engine.start(egg)
        let finish = try await engine.waitForFinish(of: egg)
        #expect(finish.kind == .finish && finish.timer == egg)
        #expect(try await engine.waitForFinish(of: egg).state == .finished)  // already finished: at once

        let slow = try engine.countdown(.seconds(3600))
        try engine.setEventKinds([], for: slow)
        try engine.start(slow)
        let waiter = Task { try await engine.waitForFinish(of: slow) }
        // It turns on FINISH and STATE, and no more, once it holds the handler.
        while try engine.eventKinds(of: slow) != [.finish, .stateChange] {
            try await BootClock().sleep(for: .milliseconds(1))
        }
        try engine.cancel(slow)
        await #expect(throws: TimerWaitError.canceled) { try await waiter.value }
        await #expect(throws: TimerWaitError.engine(.noSuchTimer)) {
            try await engine.waitForFinish(of: TimerID(rawValue: 12345))
        }
    }

    /// Swift's own rule: a cancelled wait throws `CancellationError`.
    @Test func aCancelledWaitThrowsCancellationError() async throws {
        let engine = try TimerEngine(delivery: .manualClock)
        defer { engine.close() }
        let slow = try engine.countdown(.seconds(3600))
        try engine.setEventKinds([], for: slow)
        try engine.start(slow)
        let waiter = Task { try await engine.waitForFinish(of: slow) }
        // Cancelled while it waits (it has subscribed once the kinds change).
        while try engine.eventKinds(of: slow) != [.finish, .stateChange] { await Task.yield() }
        waiter.cancel()
        do {
            _ = try await waiter.value
            Issue.record("the wait returned")
        } catch is CancellationError {
        } catch {
            Issue.record("threw \(error), not CancellationError")
        }
        let early = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await engine.waitForFinish(of: slow)
        }
        await #expect(throws: CancellationError.self) { try await early.value }
    }

    /// Several sequences of one timer, and a wait, share its handler: each
    /// gets every event of its own kinds.
    @Test func sequencesOfOneTimerEachGetEveryEventOfTheirKinds() async throws {
        let engine = try TimerEngine(delivery: .manualClock)
        defer { engine.close() }
        let tea = try engine.countdown(.seconds(3))
        try engine.setTickInterval(.seconds(1), for: tea)
        try engine.setEventKinds([], for: tea)
        // The wait first: the sequences after it share its handler.
        let waiter = Task { try await engine.waitForFinish(of: tea) }
        while try engine.eventKinds(of: tea) != [.finish, .stateChange] { await Task.yield() }
        let first = try engine.events(for: tea, kinds: .all)
        let second = try engine.events(for: tea, kinds: .all)
        let finishes = try engine.events(for: tea, kinds: .finish)
        try engine.start(tea)
        try engine.advance(by: .seconds(5))
        func kinds(_ events: TimerEvents) async -> [TimerEvent.Kind] {
            var kinds: [TimerEvent.Kind] = []
            for await event in events { kinds.append(event.kind) }
            return kinds
        }
        let all: [TimerEvent.Kind] = [.stateChange, .tick, .tick, .finish, .stateChange]
        #expect(await kinds(first) == all)
        #expect(await kinds(second) == all)
        #expect(await kinds(finishes) == [.finish])
        #expect(try await waiter.value.kind == .finish)
    }

    /// Sequences made at once from many tasks share one handler: each gets
    /// every event (none replaced another's handler).
    @Test func sequencesMadeAtOnceAllGetEveryEvent() async throws {
        let engine = try TimerEngine(delivery: .manualClock)
        defer { engine.close() }
        let tea = try engine.countdown(.seconds(2))
        let sequences = try await withThrowingTaskGroup(of: TimerEvents.self) { group in
            for _ in 0..<16 { group.addTask { try engine.events(for: tea) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        try engine.start(tea)
        try engine.advance(by: .seconds(3))
        for events in sequences {
            var kinds: [TimerEvent.Kind] = []
            for await event in events { kinds.append(event.kind) }
            #expect(kinds == [.stateChange, .finish, .stateChange])
        }
    }

    /// The timer keeps the kinds it had; the sequence adds STATE (to see the
    /// run end) but passes on only what it was asked for.
    @Test func aSequenceKeepsTheTimersKinds() async throws {
        let engine = try TimerEngine(delivery: .manualClock)
        defer { engine.close() }
        let tea = try engine.countdown(.seconds(3))
        try engine.setTickInterval(.seconds(1), for: tea)
        try engine.setEventKinds(.finish, for: tea)
        let events = try engine.events(for: tea)
        #expect(try engine.eventKinds(of: tea) == [.finish, .stateChange])
        try engine.start(tea)
        try engine.advance(by: .seconds(5))
        var kinds: [TimerEvent.Kind] = []
        for await event in events { kinds.append(event.kind) }
        #expect(kinds == [.finish])
    }

    /// A slow consumer of a fast ticker: the newest ticks are kept, those
    /// dropped are counted in the next one's `missed`, FINISH and STATE
    /// always come.
    @Test func aBoundedBufferKeepsTheNewestTicksAndEveryFinish() async throws {
        let engine = try TimerEngine(delivery: .manualClock)
        defer { engine.close() }
        let fast = try engine.countdown(.seconds(1))
        try engine.setTickInterval(.milliseconds(1), for: fast)
        let bounded = try engine.events(for: fast, buffering: .newestTicks(10))
        let unbounded = try engine.events(for: fast, buffering: .unbounded)
        try engine.start(fast)
        for _ in 0..<1000 { try engine.advance(by: .milliseconds(1)) }
        var ticks = 0
        var counted: UInt64 = 0
        var kinds: [TimerEvent.Kind] = []
        for await event in bounded {
            if event.kind == .tick {
                ticks += 1
                counted += 1 + event.missed
            } else {
                kinds.append(event.kind)
            }
        }
        var all = 0
        for await event in unbounded where event.kind == .tick { all += 1 }
        #expect(ticks == 10)
        #expect(counted == UInt64(all))  // every tick seen or counted as missed
        #expect(all == 999)  // the 1000th is folded into the finish
        #expect(kinds == [.stateChange, .finish, .stateChange])
    }

    /// A sequence nobody iterates any more is let go: its buffer with it.
    @Test func aDroppedSequenceStopsBuffering() async throws {
        let engine = try TimerEngine(delivery: .manualClock)
        defer { engine.close() }
        let tea = try engine.countdown(.seconds(3))
        weak var dropped: AnyObject?
        do {
            let events = try engine.events(for: tea)
            dropped = Mirror(reflecting: events).children.first?.value as AnyObject
        }
        #expect(dropped == nil)
        let kept = try engine.events(for: tea)
        try engine.start(tea)
        try engine.advance(by: .seconds(5))
        var count = 0
        for await _ in kept { count += 1 }
        #expect(count == 3)
    }
}

@Suite struct CalendarSpecPublicTests {
    @Test func occurrencesAreThoseOfSystemd() throws {
        let spec = try CalendarSpec("Mon..Fri 07:00 UTC")
        #expect(spec.description == "Mon..Fri *-*-* 07:00:00 UTC")
        let friday = WallClock.Instant(offset: .seconds(1_798_761_600))  // 2027-01-01 00:00 UTC, a Friday
        let next = Array(spec.occurrences(after: friday.advanced(by: .seconds(86_400))).prefix(2))  // from Saturday
        #expect(next == [
            friday.advanced(by: .seconds(3 * 86_400 + 7 * 3600)), friday.advanced(by: .seconds(4 * 86_400 + 7 * 3600)),
        ])  // Mon, Tue
        #expect(spec.next(after: next[0]) == next[1])
        // A manual machine's wall clock reads the same type.
        let clock = ManualClock(wallClock: friday)
        #expect(spec.next(after: clock.wall.now) == friday.advanced(by: .seconds(7 * 3600)))  // that Friday
    }

    @Test func aBadSpecSaysWhereItIsWrong() {
        #expect(throws: CalendarSpecError.self) { try CalendarSpec("Mon..Fry 07:00") }
        do {
            _ = try CalendarSpec("Mon 25:00")
            Issue.record("parsed")
        } catch {
            #expect(error.column == 5)
        }
    }
}
