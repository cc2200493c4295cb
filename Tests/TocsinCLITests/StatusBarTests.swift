import Testing
import TocsinService
@testable import TocsinCLI

/// The status line's choice and formats, on made-up timers and a made-up now.
@Suite struct StatusBarTests {
    static func timer(_ id: UInt64, _ label: String, _ state: String, remaining: Double? = nil, elapsed: Double = 0,
                      kind: String = "countdown", extra: [String: ServiceValue] = [:]) -> ServiceClient.Timer {
        var timer: [String: ServiceValue] = ["id": .id(id), "label": .text(label), "state": .text(state),
                                             "kind": .text(kind), "elapsed": .number(elapsed)]
        if let remaining { timer["remaining"] = .number(remaining) }
        return ServiceClient.Timer(timer.merging(extra) { $1 })
    }

    static let second: Int64 = 1_000_000_000

    @Test func theTimerShownRingsFirstThenEndsSoonestThenCountsUpThenIsPaused() {
        let seen = [
            StatusBar.Seen(Self.timer(1, "Soup", "suspended", remaining: 30), at: 0),
            StatusBar.Seen(Self.timer(2, "Run", "running", kind: "stopwatch"), at: 0),
            StatusBar.Seen(Self.timer(3, "Tea", "running", remaining: 250, elapsed: 50), at: 0),
        ]
        var summary = StatusBar.summary(seen, now: 10 * Self.second)  // listed 10 s ago: 240 s left now
        #expect(summary.text == "Tea 4:00 +2" && summary.alt == "running" && summary.percentage == 20)
        #expect(summary.tooltip == "Tea  4:00 left\nRun  0:10 elapsed\nSoup  0:30 left, paused")
        let rang = Self.timer(4, "Eggs", "finished", remaining: 0, elapsed: 60, extra: ["finished_ago": .number(5), "ring": .number(60)])
        summary = StatusBar.summary(seen + [StatusBar.Seen(rang, at: 0)], now: 10 * Self.second)
        #expect(summary.text == "Eggs done +3" && summary.alt == "ringing" && summary.percentage == nil)
        summary = StatusBar.summary(seen + [StatusBar.Seen(rang, at: 0)], now: 56 * Self.second)  // its minute is over
        #expect(summary.alt == "running" && summary.label == "Tea")
        #expect(StatusBar.summary([], now: 0) == StatusBar.Summary())
    }

    @Test func formatsFollowTheirProtocols() {
        let seen = [StatusBar.Seen(Self.timer(7, "50% off: tea", "running", remaining: 90, elapsed: 30), at: 0)]
        let summary = StatusBar.summary(seen, now: 0)
        #expect(StatusBar.render(summary, format: .polybar, command: "/opt/my:bin/tocsin")
                == #"%{A1:/opt/my\:bin/tocsin pause 7:}50%% off: tea 1:30%{A}"#)
        #expect(StatusBar.render(summary, format: .waybar)
                == #"{"text":"50% off: tea 1:30","alt":"running","tooltip":"50% off: tea  1:30 left","class":"running","percentage":25}"#)
        #expect(StatusBar.render(summary, format: .i3bar)
                == #"[{"name":"tocsin","full_text":"50% off: tea 1:30","short_text":"1:30"}]"#)
        #expect(StatusBar.render(summary, format: .plain, template: "{label} — {remaining} ({percent}%) {nothing}")
                == "50% off: tea — 1:30 (25%) {nothing}")
    }
}
