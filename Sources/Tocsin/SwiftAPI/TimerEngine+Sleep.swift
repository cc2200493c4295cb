extension TimerEngine {
    /// The engine every `BootClock`, `AwakeClock` and `WallClock` sleep of
    /// the process shares: made at the first sleep (again at the next if
    /// that failed), on its own thread, never closed.
    package static let clocks = SharedEngine { () throws(TocsinError) in try TimerEngine(delivery: .engineThread) }

    /// Sleeps on the shared engine until `now` reads `deadline` (ns), on
    /// `clock`; at once if it has passed.
    static func sleep(
        until deadline: Int64, on clock: TimerClock, tolerance: Duration?, now: () -> Int64
    ) async throws {
        try Task.checkCancellation()
        guard deadline > now() else { return }
        try await clocks.get().sleep(until: deadline, on: clock, tolerance: tolerance, now: now)
    }

    /// Sleeps on this engine until `now` reads `deadline` (ns), on `clock`:
    /// in steps of 100 years (the longest countdown) if it is further.
    func sleep(
        until deadline: Int64, on clock: TimerClock, tolerance: Duration?, counter: SleeperCount? = nil,
        now: () -> Int64
    ) async throws {
        while true {
            let left = deadline.subtractingSaturated(now())
            guard left > 0 else { return }
            try await sleep(nanoseconds: min(left, Nanos.max), clock: clock, tolerance: tolerance, counter: counter)
            if left <= Nanos.max { return }
        }
    }

    /// Sleeps on this engine for `nanoseconds` of `clock`, late by at most
    /// `tolerance` (as leeway, capped at a day).
    private func sleep(
        nanoseconds: Int64, clock: TimerClock, tolerance: Duration?, counter: SleeperCount? = nil
    ) async throws {
        let leeway = Self.leeway(for: tolerance)
        try await Sleeper.sleep(on: self, counter: counter) { sleeper throws(TocsinError) in
            try core.startSleep(nanoseconds: nanoseconds, clock: clock, leeway: leeway, handler: sleeper.handler)
        }
    }

    /// A sleep's tolerance as leeway in ns: none for nil or negative, at
    /// most a day.
    private static func leeway(for tolerance: Duration?) -> Int64 {
        guard let tolerance, tolerance > .zero else { return 0 }
        return min(Nanos.from(tolerance) ?? maxLeeway, maxLeeway)
    }

    /// Sleeps on this engine until its wall clock reads `unixTime` (ns),
    /// following every change of that clock, late by at most `tolerance`.
    func sleep(untilWallClock unixTime: Int64, tolerance: Duration?, counter: SleeperCount? = nil) async throws {
        let leeway = Self.leeway(for: tolerance)
        try await Sleeper.sleep(on: self, counter: counter) { sleeper throws(TocsinError) in
            let alarm = try core.alarm(atNanoseconds: unixTime)
            do throws(TocsinError) {
                try setEventKinds(.finish, for: alarm)
                if leeway > 0 { try core.setLeeway(nanoseconds: leeway, for: alarm) }
                try setHandler(for: alarm, sleeper.handler)
                try core.start(alarm)
            } catch {
                try? free(alarm)
                throw error
            }
            return alarm
        }
    }
}
