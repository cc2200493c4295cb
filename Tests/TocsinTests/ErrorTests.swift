import Testing
import Tocsin

@Suite struct ErrorTests {
    @Test(arguments: [Duration.zero, .seconds(-1), .seconds(3_155_760_001)])
    func badCountdownDurationsAreRejected(_ duration: Duration) throws {
        let engine = try TimerEngine(delivery: .manualClock)
        defer { engine.close() }
        #expect(expectError(.invalidArgument) { () throws(TocsinError) in try engine.countdown(duration) })
        #expect(try engine.timerCount() == 0)
    }

    @Test func staleAndForeignHandlesAreUnknown() throws {
        let engine = try TimerEngine(delivery: .manualClock)
        let other = try TimerEngine(delivery: .manualClock)
        defer { engine.close(); other.close() }
        let timer = try engine.countdown(.seconds(1))
        let foreign = try other.countdown(.seconds(1))
        #expect(expectError(.noSuchTimer) { () throws(TocsinError) in try engine.start(foreign) })
        #expect(expectError(.noSuchTimer) { () throws(TocsinError) in try engine.start(TimerID(rawValue: 0)) })
        try engine.free(timer)
        #expect(expectError(.noSuchTimer) { () throws(TocsinError) in try engine.free(timer) })
        #expect(expectError(.noSuchTimer) { () throws(TocsinError) in try engine.state(of: timer) })
    }

    @Test func handlesAreNeverReusedEvenWhenSlotsAre() throws {
        let engine = try TimerEngine(delivery: .manualClock)
        defer { engine.close() }
        var seen = Set<TimerID>()
        for _ in 0..<200_000 {  // past one slot's 65,536 generations
            let timer = try engine.countdown(.seconds(1))
            #expect(seen.insert(timer).inserted)
            try engine.free(timer)
        }
        #expect(try engine.timerCount() == 0)
    }

    @Test func labelsRoundTripAndAreBounded() throws {
        let engine = try TimerEngine(delivery: .manualClock)
        defer { engine.close() }
        let timer = try engine.countdown(.seconds(1))
        #expect(try engine.label(of: timer) == "")
        try engine.setLabel("Tea 🍵", for: timer)
        #expect(try engine.label(of: timer) == "Tea 🍵")
        let tooLong = String(repeating: "x", count: 4097)
        #expect(expectError(.invalidArgument) { () throws(TocsinError) in try engine.setLabel(tooLong, for: timer) })
        #expect(try engine.label(of: timer) == "Tea 🍵")
        try engine.setLabel(String(repeating: "é", count: 2048), for: timer)
        try engine.setLabel(nil, for: timer)
        #expect(try engine.label(of: timer) == "")
    }

    @Test func modeSpecificCallsAreRefusedInOtherModes() throws {
        let manual = try TimerEngine(delivery: .manualClock)
        let polled = try TimerEngine(delivery: .polled)
        let threaded = try TimerEngine(delivery: .engineThread)
        defer { manual.close(); polled.close(); threaded.close() }
        #expect(expectError(.wrongState) { () throws(TocsinError) in try manual.dispatch() })
        #expect(expectError(.wrongState) { () throws(TocsinError) in try manual.pollFileDescriptor() })
        #expect(expectError(.wrongState) { () throws(TocsinError) in try polled.advance(by: .seconds(1)) })
        #expect(expectError(.wrongState) { () throws(TocsinError) in try threaded.dispatch() })
        #expect(expectError(.wrongState) { () throws(TocsinError) in try threaded.pollFileDescriptor() })
        #expect(expectError(.invalidArgument) { () throws(TocsinError) in try manual.advance(by: .seconds(-1)) })
        #expect(try polled.pollFileDescriptor() >= 0)
    }

    @Test func theManualClockStopsShortOfOverflow() throws {
        let engine = try TimerEngine(delivery: .manualClock)
        defer { engine.close() }
        let year = Duration.seconds(31_557_600)
        try engine.advance(by: year * 100)
        #expect(expectError(.invalidArgument) { () throws(TocsinError) in try engine.advance(by: year * 100) })
        try engine.advance(by: year * 45)  // 145 years
        #expect(expectError(.invalidArgument) { () throws(TocsinError) in try engine.advance(by: year * 2) })
        #expect(try engine.now() == year * 145)  // a refused step moves nothing
    }

    @Test func aClosedEngineRefusesEverything() throws {
        let engine = try TimerEngine(delivery: .manualClock)
        let timer = try engine.countdown(.seconds(1))
        engine.close()
        engine.close()  // closing again does nothing
        #expect(expectError(.closed) { () throws(TocsinError) in try engine.start(timer) })
        #expect(expectError(.closed) { () throws(TocsinError) in try engine.countdown(.seconds(1)) })
        #expect(expectError(.closed) { () throws(TocsinError) in try engine.now() })
    }

    @Test func errorsCarryTheHeadersNamesAndTexts() {
        #expect(TocsinError.invalidArgument.code == -1)
        #expect(TocsinError.closed.code == -7)
        #expect(TocsinError.noSuchTimer.name == "TOCSIN_ENOENT")
        #expect(TocsinError.wrongState.description == "not allowed in the current state or engine mode")
        #expect(TocsinError(code: -99).description == "unknown error")
    }
}
