import Glibc
import Synchronization
import Testing
import Tocsin
@testable import TocsinDesktop
import TocsinNotify

/// The notifier from Swift, outside any desktop session (inside one: the
/// desktop tests of `make test-desktop`). Serialized: they change the
/// process's environment.
@Suite(.serialized) struct NotifierTests {
    init() {
        for name in ["DBUS_SESSION_BUS_ADDRESS", "XDG_RUNTIME_DIR", "PULSE_SERVER", "DISPLAY"] {
            unsetenv(name)
        }
    }

    @Test func withoutADesktopFailuresAreReportedFastAndFinishIsOnTime() throws {
        let engine = try TimerEngine(delivery: .manualClock)
        defer { engine.close() }
        let notifier = try Notifier(options: .init(quiet: true))
        defer { notifier.close() }
        let reports = Mutex<[NotifierReport]>([])
        notifier.setReportHandler { report in reports.withLock { $0.append(report) } }
        let tea = try engine.countdown(.seconds(3))
        try engine.setLabel("Tea", for: tea)
        let finished = Mutex(0)
        try engine.setHandler(for: tea) { event in
            if event.kind == .finish { finished.withLock { $0 += 1 } }
        }
        try notifier.attach(tea, in: engine, alert: Alert(body: "Tea is ready"))
        try engine.start(tea)
        let clock = ContinuousClock()
        let began = clock.now
        try engine.advance(by: .seconds(3))
        #expect(finished.withLock { $0 } == 1)
        #expect(notifier.flush(timeout: .seconds(5)))
        #expect(clock.now - began < .seconds(1))
        let seen = reports.withLock { $0 }
        let alert = try #require(seen.first { $0.kind == .alertFailed })
        #expect(alert.detail == "no session bus: DBUS_SESSION_BUS_ADDRESS is not set")
        #expect(alert.error == .unavailable)
        #expect(alert.timer == tea)
        #expect(seen.contains { $0.kind == .soundFailed || $0.detail == "terminal-bell" })
    }

    /// The core's callbacks hold it (no weak references, for Embedded
    /// Swift): dropping the last `Notifier` closes it, and nothing keeps it.
    @Test func droppingTheNotifierClosesItAndFreesEverything() throws {
        let engine = try TimerEngine(delivery: .manualClock)
        defer { engine.close() }
        weak var core: NotifierCore?
        do {
            let notifier = try Notifier(options: .init(quiet: true))
            core = notifier.core
            let timer = try engine.countdown(.seconds(2))
            try notifier.attach(timer, in: engine, alert: Alert(live: true, warning: .seconds(1)))
            try engine.start(timer)
            try engine.advance(by: .seconds(2))  // the alarm, its sound, the live timeouts
            notifier.show(Alert(body: "standalone"))
            #expect(core != nil)
        }
        #expect(core == nil)
        let timer = try engine.countdown(.seconds(1))  // the engine's observer went with it
        try engine.start(timer)
        try engine.advance(by: .seconds(1))
        #expect(try engine.state(of: timer) == .finished)
    }

    @Test func restartingOrCancellingWithdrawsAndDetachStopsAlerts() throws {
        let engine = try TimerEngine(delivery: .manualClock)
        defer { engine.close() }
        let notifier = try Notifier(options: .init(quiet: true))
        defer { notifier.close() }
        let reports = Mutex(0)
        notifier.setReportHandler { _ in reports.withLock { $0 += 1 } }
        let timer = try engine.countdown(.seconds(1))
        try notifier.attach(timer, in: engine, alert: Alert(sound: nil))
        try engine.start(timer)
        try engine.advance(by: .seconds(1))
        #expect(notifier.flush(timeout: .seconds(5)))
        #expect(reports.withLock { $0 } == 1)  // alert failed (no desktop); no sound asked for
        notifier.detach(timer, in: engine)
        try engine.start(timer)
        try engine.advance(by: .seconds(1))
        #expect(notifier.flush(timeout: .seconds(5)))
        #expect(reports.withLock { $0 } == 1)  // detached: nothing more
    }

    /// With no desktop, a live alert fails once and is not retried every
    /// second (it waits for the timer's next state change).
    @Test func aLiveAlertWithoutADesktopFailsOnceNotEverySecond() throws {
        let engine = try TimerEngine()
        defer { engine.close() }
        let notifier = try Notifier(options: .init(quiet: true))
        defer { notifier.close() }
        let reports = Mutex<[NotifierReport]>([])
        notifier.setReportHandler { report in reports.withLock { $0.append(report) } }
        let tea = try engine.countdown(.seconds(30))
        try notifier.attach(tea, in: engine, alert: Alert(live: true))
        let failures = { reports.withLock { $0 }.filter { $0.kind == .alertFailed }.count }
        let started = ContinuousClock.now
        try engine.start(tea)
        #expect(waitUntil { failures() >= 1 })
        // Nothing more for the 2.6 s after the start (more than two of its seconds).
        let left = started + .milliseconds(2600) - ContinuousClock.now
        if left > .zero { usleep(UInt32(left.components.attoseconds / 1_000_000_000_000 + left.components.seconds * 1_000_000)) }
        #expect(failures() == 1)
        try engine.suspend(tea)  // a state change: tried once more
        #expect(waitUntil { failures() == 2 })
    }

    @Test func diagnosisSaysWhatIsMissing() throws {
        let notifier = try Notifier(options: .init(quiet: true))
        defer { notifier.close() }
        let text = notifier.diagnose().description
        #expect(text.contains("no session bus: DBUS_SESSION_BUS_ADDRESS is not set"))
        #expect(text.contains("sound bell:"))
    }

    @Test func attachingAnUnknownTimerFails() throws {
        let engine = try TimerEngine(delivery: .manualClock)
        let other = try TimerEngine(delivery: .manualClock)
        defer { engine.close(); other.close() }
        let notifier = try Notifier(options: .init(quiet: true))
        defer { notifier.close() }
        let foreign = try other.countdown(.seconds(1))
        #expect(throws: TocsinError.noSuchTimer) { try notifier.attach(foreign, in: engine) }
    }
}

/// Polls `condition` every millisecond until it holds (true) or 30 s have
/// passed (false).
private func waitUntil(_ condition: () -> Bool) -> Bool {
    let deadline = ContinuousClock.now + .seconds(30)
    while !condition() {
        if ContinuousClock.now > deadline { return false }
        usleep(1_000)
    }
    return true
}
