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

    @Test func finishOfReturnsTheFinishOrSaysWhyNot() async throws {
        let engine = try TimerEngine(delivery: .engineThread)
        defer { engine.close() }
        let egg = try engine.countdown(.milliseconds(20))
        try engine.start(egg)
        let finish = try await engine.finish(of: egg)
        #expect(finish.kind == .finish && finish.timer == egg)
        #expect(try await engine.finish(of: egg).state == .finished)  // already finished: at once

        let slow = try engine.countdown(.seconds(3600))
        try engine.setEventKinds([], for: slow)
        try engine.start(slow)
        let waiter = Task { try await engine.finish(of: slow) }
        // finish(of:) lets every kind through once it holds the handler.
        while try engine.eventKinds(of: slow) != .all { try await BootClock().sleep(for: .milliseconds(1)) }
        try engine.cancel(slow)
        await #expect(throws: TimerWaitError.canceled) { try await waiter.value }
        await #expect(throws: TimerWaitError.engine(.noSuchTimer)) {
            try await engine.finish(of: TimerID(rawValue: 12345))
        }
    }
}

@Suite struct CalendarSpecPublicTests {
    @Test func occurrencesAreThoseOfSystemd() throws {
        let spec = try CalendarSpec("Mon..Fri 07:00 UTC")
        #expect(spec.description == "Mon..Fri *-*-* 07:00:00 UTC")
        let friday: Int64 = 1_798_761_600  // 2027-01-01 00:00 UTC, a Friday
        let next = Array(spec.occurrences(after: .seconds(friday + 86_400)).prefix(2))  // from Saturday
        #expect(next == [.seconds(friday + 3 * 86_400 + 7 * 3600), .seconds(friday + 4 * 86_400 + 7 * 3600)])  // Mon, Tue
        #expect(spec.next(after: next[0]) == next[1])
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
