import Testing
@testable import TocsinDesktop
import TocsinBase

/// What a live notification shows and when it changes, without a desktop.
struct LiveDisplayTests {
    let second = LiveDisplay.second

    func countdown(_ state: HostReading.State = .running, elapsed: Double, remaining: Double) -> HostReading {
        HostReading(state: state, remaining: Int64(remaining * 1e9), elapsed: Int64(elapsed * 1e9), isAlarm: false)
    }

    @Test func aRunningCountdownShowsTimeLeftPercentDoneAndItsButtons() throws {
        let frame = try #require(LiveDisplay.frame(label: "Tea", reading: countdown(elapsed: 1.5, remaining: 4.5),
                                                   warning: nil, warned: false, announcing: false))
        #expect(frame.summary == "Tea")
        #expect(frame.body == "0:05 left")  // rounded up: 0:01 until it is over
        #expect(frame.value == 25)
        #expect(frame.urgency == .low)
        #expect(frame.buttons == [.pause, .snooze, .cancel])
    }

    @Test func atFiveMinutesOneMinuteAndTenSecondsTheTimeIsInWords() throws {
        func body(_ remaining: Double, _ state: HostReading.State = .running) throws -> String {
            try #require(LiveDisplay.frame(label: "Tea", reading: countdown(state, elapsed: 1, remaining: remaining),
                                           warning: nil, warned: false, announcing: false)).body
        }
        #expect(try body(300) == "5 minutes left" && body(299.5) == "5 minutes left" && body(299) == "4:59 left")
        #expect(try body(60) == "1 minute left" && body(61) == "1:01 left" && body(10) == "10 seconds left")
        #expect(try body(9.9) == "10 seconds left" && body(9) == "0:09 left")  // (9.9 s would show 0:10)
        #expect(try body(60, .suspended) == "1:00 left · paused")  // paused: the clock, unchanged
    }

    @Test func aPausedOneSaysSoAndOffersResume() throws {
        let frame = try #require(LiveDisplay.frame(label: "Tea", reading: countdown(.suspended, elapsed: 3, remaining: 3),
                                                   warning: nil, warned: false, announcing: false))
        #expect(frame.body == "0:03 left · paused")
        #expect(frame.buttons == [.resume, .snooze, .cancel])
        #expect(LiveDisplay.nextChange(of: countdown(.suspended, elapsed: 3, remaining: 3), warning: nil, warned: false) == nil)
    }

    @Test func aStopwatchCountsUpWithoutABarOrPlusOneMinute() throws {
        let reading = HostReading(state: .running, remaining: nil, elapsed: 83 * second + second / 5, isAlarm: false)
        let frame = try #require(LiveDisplay.frame(label: "Run", reading: reading, warning: nil, warned: false, announcing: false))
        #expect(frame.body == "1:23 elapsed")
        #expect(frame.value == nil)
        #expect(frame.buttons == [.pause, .cancel])
        #expect(LiveDisplay.nextChange(of: reading, warning: nil, warned: false) == 4 * second / 5)
    }

    @Test func otherStatesHaveNoLiveFrame() {
        for state in [HostReading.State.idle, .finished, .canceled] {
            #expect(LiveDisplay.frame(label: "Tea", reading: countdown(state, elapsed: 0, remaining: 0),
                                      warning: nil, warned: false, announcing: false) == nil)
        }
    }

    @Test func theWarningFrameSaysHowMuchIsLeftAndStandsOut() throws {
        let reading = countdown(elapsed: 58, remaining: 2)
        #expect(LiveDisplay.warningDue(reading, warning: 2 * second, warned: false))
        #expect(!LiveDisplay.warningDue(reading, warning: 2 * second, warned: true))
        #expect(!LiveDisplay.warningDue(countdown(elapsed: 57, remaining: 3), warning: 2 * second, warned: false))
        let frame = try #require(LiveDisplay.frame(label: "Tea", reading: reading, warning: 2 * second, warned: true, announcing: true))
        #expect(frame.body == "2 seconds left")
        #expect(frame.urgency == .normal)
    }

    @Test func theNextLookIsWhenTheShownSecondsOrTheWarningChange() {
        #expect(LiveDisplay.nextChange(of: countdown(elapsed: 1.5, remaining: 4.5), warning: nil, warned: false) == second / 2)
        #expect(LiveDisplay.nextChange(of: countdown(elapsed: 2, remaining: 4), warning: nil, warned: false) == second)
        // The warning at 1.5 s left falls between two changes of the seconds.
        #expect(LiveDisplay.nextChange(of: countdown(elapsed: 4, remaining: 2), warning: 3 * second / 2, warned: false) == second / 2)
        #expect(LiveDisplay.nextChange(of: countdown(elapsed: 4, remaining: 2), warning: 3 * second / 2, warned: true) == second)
        #expect(LiveDisplay.nextChange(of: countdown(elapsed: 6, remaining: 0), warning: nil, warned: false) == second)
    }

    /// A 6 s countdown followed as the notifier follows it: each look at the
    /// time the display said. The text changes once a second, never faster,
    /// and the warning comes exactly at its time.
    @Test func followingASixSecondCountdownUpdatesOncePerSecond() throws {
        let duration = 6 * second, warning = 2 * second
        var now: Int64 = 0, warned = false
        var shown: [(at: Int64, body: String)] = []
        while now < duration {
            let reading = HostReading(state: .running, remaining: duration - now, elapsed: now, isAlarm: false)
            let announcing = LiveDisplay.warningDue(reading, warning: warning, warned: warned)
            if announcing { warned = true }
            let frame = try #require(LiveDisplay.frame(label: "Tea", reading: reading, warning: warning, warned: warned,
                                                       announcing: announcing))
            if shown.last?.body != frame.body { shown.append((now, frame.body)) }
            now += try #require(LiveDisplay.nextChange(of: reading, warning: warning, warned: warned))
        }
        #expect(shown.map(\.body) == ["0:06 left", "0:05 left", "0:04 left", "0:03 left", "2 seconds left", "0:01 left"])
        #expect(shown.map(\.at) == [0, 1, 2, 3, 4, 5].map { $0 * second })
    }

    @Test func overtimeCountsInStepsOfTenSeconds() {
        #expect(LiveDisplay.overtime("Tea is ready", since: 13 * second, alarm: false) == "Tea is ready\nRan out 0:10 ago")
        #expect(LiveDisplay.overtime("It is 14:30", since: 133 * second, alarm: true) == "It is 14:30\nRang 2:10 ago")
        #expect(LiveDisplay.nextOvertime(since: 13 * second) == 7 * second)
    }

    @Test func clocksAndPhrases() {
        #expect(Wording.clock(3723 * second, roundUp: false) == "1:02:03")
        #expect(Wording.clock(second / 10, roundUp: true) == "0:01")
        #expect(Wording.clock(0, roundUp: true) == "0:00")
        #expect(Wording.clock(-5, roundUp: true) == "0:00")
        #expect(Wording.phrase(second) == "1 second")
        #expect(Wording.phrase(2 * second) == "2 seconds")
        #expect(Wording.phrase(60 * second) == "1 minute")
        #expect(Wording.phrase(90 * second) == "1 min 30 s")
        #expect(Wording.phrase(7200 * second) == "2 hours")
    }
}

@Suite struct LiveRankTests {
    private func reading(_ state: HostReading.State, remaining: Int64?, elapsed: Int64 = 0) -> HostReading {
        HostReading(state: state, remaining: remaining, elapsed: elapsed, isAlarm: false)
    }

    @Test func runningCountdownsComeFirstBySoonestThenStopwatchesThenPaused() {
        let second = LiveDisplay.second
        let ranks = [
            LiveDisplay.rank(reading(.suspended, remaining: 5 * second)),
            LiveDisplay.rank(reading(.running, remaining: nil, elapsed: 3 * second)),
            LiveDisplay.rank(reading(.running, remaining: 90 * second)),
            LiveDisplay.rank(reading(.running, remaining: 30 * second)),
            LiveDisplay.rank(reading(.suspended, remaining: nil)),
        ]
        #expect(ranks.indices.sorted { ranks[$0] < ranks[$1] } == [3, 2, 1, 4, 0])
    }

    @Test func theSummaryLineOfATimer() {
        let second = LiveDisplay.second
        #expect(LiveDisplay.brief(label: "Rice", reading: reading(.running, remaining: 191 * second + 1)) == "Rice 3:12")
        #expect(LiveDisplay.brief(label: "Eggs", reading: reading(.suspended, remaining: 460 * second)) == "Eggs 7:40 paused")
        #expect(LiveDisplay.brief(label: "Run", reading: reading(.running, remaining: nil, elapsed: 723 * second)) == "Run 12:03")
    }

    @Test func aFrameIsTheSameWhenOnlyItsPercentageMoved() {
        let second = LiveDisplay.second
        let early = LiveDisplay.frame(label: "Tea", reading: reading(.running, remaining: 5 * second + 900_000_000, elapsed: 100_000_000),
                                      warning: nil, warned: false, announcing: false)
        let later = LiveDisplay.frame(label: "Tea", reading: reading(.running, remaining: 5 * second + 100_000_000, elapsed: 900_000_000),
                                      warning: nil, warned: false, announcing: false)
        #expect(early?.value != later?.value)
        #expect(early == later)
    }

    @Test func theNoticeSaysWhenTheAlarmRingsAndOffersSkipThisOne() {
        let second = LiveDisplay.second
        let ring: Int64 = 1_796_108_400 * Nanos.perSecond
        let frame = LiveDisplay.notice(label: "Wake", remaining: 29 * 60 * second + second / 2, ringsAt: ring)
        #expect(frame.summary == "Wake")
        #expect(frame.body == "Rings at \(Wording.localTimeOfDay(unixSeconds: ring / Nanos.perSecond)), in 30 min")
        #expect(frame.buttons == [AlertButton.skip] && frame.buttons[0].label == "Skip this one")
        // Under a minute is still "in 1 min", never "in 0 min".
        #expect(LiveDisplay.notice(label: "Wake", remaining: second, ringsAt: ring).body.hasSuffix(", in 1 min"))
        // A live alarm's frame keeps its own text and buttons, the notice's first.
        let live = LiveDisplay.Frame(summary: "Wake", body: "29:59 left", value: nil, urgency: .low, buttons: [.pause, .cancel])
        let merged = LiveDisplay.withNotice(live, frame)
        #expect(merged.body == "29:59 left\n" + frame.body && merged.buttons == [AlertButton.skip, .pause, .cancel])
    }
}
