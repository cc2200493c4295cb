import Testing
import TocsinCLI
import TocsinService
import TocsinNotify

/// The command's side of the timer service, without a bus: naming timers,
/// `ls`'s lines and JSON, and what `-b` hands over.
@Suite struct ServiceClientLogicTests {
    static let timers: [ServiceClient.Timer] = [
        ["id": .id(1), "label": .text("Tea"), "kind": .text("countdown"), "state": .text("running"),
         "elapsed": .number(10), "remaining": .number(290.2), "duration": .number(300.2), "laps": .numbers([])],
        ["id": .id(2), "label": .text("Teapot"), "state": .text("finished"), "elapsed": .number(60),
         "remaining": .number(0), "finished_ago": .number(125)],
        ["id": .id(12), "label": .text(""), "kind": .text("stopwatch"), "state": .text("suspended"),
         "elapsed": .number(3723.5), "laps": .numbers([1.25, 2])],
    ]

    @Test func aTimerIsNamedByIdExactLabelOrUniquePrefix() throws {
        #expect(try ServiceTimers.resolve("12", in: Self.timers) == 12)
        #expect(try ServiceTimers.resolve("Tea", in: Self.timers) == 1)  // exact beats prefix
        #expect(try ServiceTimers.resolve("Teap", in: Self.timers) == 2)
        #expect(throws: CommandFailure("no timer Coffee (tocsin ls lists them)")) {
            try ServiceTimers.resolve("Coffee", in: Self.timers)
        }
        #expect(throws: CommandFailure("Te could be any of: 1 Tea, 2 Teapot; give the id", status: 2)) {
            try ServiceTimers.resolve("Te", in: Self.timers)
        }
    }

    @Test func lsLinesAreColumnsWithWhatMattersForEachState() {
        #expect(ServiceTimers.lines(Self.timers) == [
            " 1  Tea     running    04:51 left",
            " 2  Teapot  finished   done 02:05 ago",
            "12  -       paused     1:02:03.5 elapsed",
        ])
    }

    /// Times said one way (issue 58): "ago" in whole seconds ("done 02:18.1
    /// ago" beside "done 01:33 ago"), and past a day with its days, as a
    /// calendar alarm's ("622:13:17 left" beside "1d 12:14:59 left").
    @Test func lsSaysEachTimeOneWay() {
        let timers: [ServiceClient.Timer] = [
            ["id": .id(1), "label": .text("Tea"), "state": .text("finished"), "elapsed": .number(60),
             "remaining": .number(0), "finished_ago": .number(138.1)],
            ["id": .id(2), "label": .text("Trip"), "kind": .text("alarm"), "state": .text("running"), "elapsed": .number(5),
             "remaining": .number(622 * 3600 + 13 * 60 + 17), "duration": .number(3_000_000)],
        ]
        #expect(ServiceTimers.lines(timers) == [
            "1  Tea    finished   done 02:18 ago",
            "2  Trip   running    25d 22:13:17 left",
        ])
        #expect(StatusBar.left(36 * 3_600_000_000_000 + 14 * 60_000_000_000 + 56_000_000_000) == "1d 12:14:56")
        #expect(StatusBar.left(59 * 60_000_000_000) == "59:00")
        #expect(StatusBar.left(2 * 86_400_000_000_000 - 100_000_000) == "2d 00:00:00")  // never "1d 24:00:00"
        // The same rule translated (`tocsin next`, `ls`): time left rounds up, time ago down.
        #expect(Display.until(nanoseconds: 86_400_000_000_000 - 100_000_000) == "1d 00:00:00")
        #expect(Display.until(nanoseconds: 90_061_900_000_000, roundUp: false) == "1d 01:01:01")
        #expect(Display.until(nanoseconds: 3_599_100_000_000) == "1:00:00")
        #expect(ServiceTimers.lines([["id": .id(3), "label": .text("Trip"), "state": .text("running"), "elapsed": .number(0),
                                      "remaining": .number(172_799.9), "duration": .number(172_800)]])
                == ["3  Trip   running    2d 00:00:00 left"])
    }

    @Test func lsJSONKeepsItsMemberOrderAndMicroseconds() {
        #expect(ServiceTimers.json(Self.timers[0]) == """
            {"id":1,"label":"Tea","kind":"countdown","state":"running","elapsed":10.0,"remaining":290.2,"duration":300.2,"laps":[]}
            """)
        #expect(ServiceTimers.line(for: .changed(Self.timers[2]), json: true) == """
            {"event":"changed","id":12,"label":"","kind":"stopwatch","state":"suspended","elapsed":3723.5,"laps":[1.25,2.0]}
            """)
        #expect(ServiceTimers.line(for: .finished(id: 1, label: "Tea \"Earl\"", lateness: 0.0000004, finish: 1, again: false),
                                   json: true)
                == #"{"event":"finished","id":1,"label":"Tea \"Earl\"","lateness":0.0,"finish":1,"again":false}"#)
        #expect(ServiceTimers.line(for: .finished(id: 1, label: "", lateness: 0.000001, finish: 2, again: true), json: true)
                == #"{"event":"finished","id":1,"label":"","lateness":0.000001,"finish":2,"again":true}"#)  // plain decimal, no exponent
        #expect(ServiceTimers.line(for: .finished(id: 3, label: "Tea", lateness: 0.1, finish: 2, again: true), json: false)
                == "3  Tea  finished (announced again: the service restarted)")
        #expect(ServiceTimers.line(for: .finished(id: 3, label: "Tea", lateness: 0.1, finish: 1, again: false), json: false)
                == "3  Tea  finished")
        #expect(ServiceTimers.line(for: .removed(id: 2), json: false) == "2  removed")
    }

    @Test func backgroundPlanChainsTheTimersAndSaysWhenEachEnds() throws {
        let plan = try TimerPlan(words: ["25m:Work", "5m:Break"])
        var settings = AlarmSettings()
        (settings.sound, settings.warning) = (false, 30_000_000_000)
        let chained = BackgroundPlan(plan, rounds: 2, parallel: false, settings: settings, awake: true, now: 1_000)
        #expect(chained.adds.map(\.label) == ["Work", "Break", "Work", "Break"])
        #expect(chained.adds.map(\.waitsForPrevious) == [false, true, true, true])
        #expect(chained.adds.map(\.endsAt) == [2_500, 2_800, 4_300, 4_600])
        let options = chained.adds[0].options.map { "\($0.0)=\($0.1)" }
        #expect(options == ["alert=flag(true)", "sound=flag(false)", "live=flag(true)", "warn=number(30.0)", "clock=text(\"awake\")"])
        let parallel = BackgroundPlan(plan, rounds: 1, parallel: true, settings: AlarmSettings(), awake: false, now: 1_000)
        #expect(parallel.adds.map(\.waitsForPrevious) == [false, false])
        #expect(parallel.adds.map(\.endsAt) == [2_500, 1_300])
    }
}
