import Testing
import Tocsin

/// The one home of the texts that word times and lengths for a person.
@Suite struct WordingTests {
    let second = Nanos.perSecond

    @Test func lengthsInTheirUnits() {
        #expect(Wording.duration(300 * second) == "5 min")
        #expect(Wording.duration(5400 * second) == "1 h 30 min")
        #expect(Wording.duration(90 * second) == "1 min 30 s")
        #expect(Wording.duration(0) == "1 s")  // at least a second
        #expect(Wording.roughDuration(3 * 3600 * second + 59 * 60 * second) == "3 h")
        #expect(Wording.roughDuration(12 * 60 * second + 59 * second) == "12 min")
        #expect(Wording.roughDuration(40 * second) == "40 s")
        #expect(Wording.phrase(60 * second) == "1 minute" && Wording.phrase(2 * second) == "2 seconds")
    }

    @Test func timesOfDayFollowTheZoneAsItIsNow() {
        #expect(Wording.timeOfDay([7, 0]) == "07:00" && Wording.timeOfDay([14, 30, 5]) == "14:30:05")
        // The local zone as the engine reads it (its own TZif reader): the
        // same hour and minute. (TZ is not changed here: tests run in parallel.)
        for unix: Int64 in [1_800_000_000, 1_790_000_000, 0] {
            let local = unix + Int64(ZoneRules.local().offset(at: unix))
            let minutes = Int((local % 86400 + 86400) % 86400 / 60)
            #expect(Wording.localTimeOfDay(unixSeconds: unix) == Wording.timeOfDay([minutes / 60, minutes % 60]))
        }
    }
}
