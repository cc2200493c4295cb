extension ManualClock {
    /// The simulated machine of a `ManualClock` and its views: an engine on
    /// a manual clock, and its sleepers.
    final class Machine: Sendable {
        /// Which of the machine's clocks a view reads and sleeps on.
        enum Reading: Sendable {
            case boot, awake, wall
        }

        let engine: Result<TimerEngine, TocsinError>
        let sleepers = SleeperCount()
        private let turns = Turns()
        /// How long `advance` waits for resumed tasks that do not sleep again.
        let patience: Duration

        init(wallClock: Int64, patience: Duration) {
            self.patience = patience
            engine = Result { () throws(TocsinError) in
                let engine = try TimerEngine(delivery: .manualClock)
                if wallClock != 0 { _ = try engine.setWallClock(nanoseconds: wallClock) }
                return engine
            }
        }

        deinit {
            if case .success(let engine) = engine { engine.close() }
        }

        func now(_ reading: Reading) -> Int64 {
            guard case .success(let engine) = engine else { return 0 }
            return switch reading {
            case .boot: (try? engine.core.nowNanoseconds()) ?? 0
            case .awake: (try? engine.core.awakeNowNanoseconds()) ?? 0
            case .wall: (try? engine.core.wallClockNanoseconds()) ?? 0
            }
        }

        func sleep(until deadline: Int64, on reading: Reading, tolerance: Duration?) async throws {
            try Task.checkCancellation()
            let engine = try engine.get()
            guard deadline > now(reading) else { return }
            switch reading {
            case .wall:
                try await engine.sleep(untilWallClock: deadline, tolerance: tolerance, counter: sleepers)
            case .boot, .awake:
                try await engine.sleep(
                    until: deadline, on: reading == .boot ? .boot : .awake, tolerance: tolerance, counter: sleepers
                ) { now(reading) }
            }
        }

        /// Moves the clocks on by `step` (ns), stopping at each sleep's
        /// deadline on the way: there it resumes the sleeps due and lets
        /// their tasks run until each sleeps on the machine again (or,
        /// after `patience` with none doing so, goes on without them), so
        /// sleeps they start meanwhile are served in the same advance, in
        /// order. Returns how many sleeps it resumed.
        func advance(by step: Int64) async throws(TocsinError) -> Int {
            let engine = try engine.get()
            await turns.take()  // one advance at a time: the next waits for this one
            defer { turns.give() }
            guard step >= 0, step <= Nanos.clockCeiling - now(.boot) else { throw .invalidArgument }
            sleepers.track(true)
            defer { sleepers.track(false) }
            var left = step
            var resumed = 0
            var idleHops = 0
            while left > 0, idleHops < 8 {
                guard let next = engine.core.nextDeadline() else { break }
                let hop = max(0, next.subtractingSaturated(now(.boot)))
                guard hop <= left else { break }
                let delivered = try engine.advance(nanoseconds: hop)
                resumed += delivered
                left -= hop
                idleHops = hop == 0 && delivered == 0 ? idleHops + 1 : 0  // a stale top moved on
                await sleepers.settle(patience: patience)
            }
            resumed += try engine.advance(nanoseconds: left)
            await sleepers.settle(patience: patience)
            return resumed
        }
    }

    /// Advances served one after another, in the order they came: a second
    /// one waits for the first to end (its tasks settled) before it moves
    /// the clock.
    private final class Turns: Sendable {
        private let state = Guarded((busy: false, waiting: [CheckedContinuation<Void, Never>]()))

        func take() async {
            await withCheckedContinuation { continuation in
                let now = state.withLock { state in
                    if !state.busy {
                        state.busy = true
                        return true
                    }
                    state.waiting.append(continuation)
                    return false
                }
                if now { continuation.resume() }
            }
        }

        func give() {
            let next: CheckedContinuation<Void, Never>? = state.withLock { state in
                guard !state.waiting.isEmpty else {
                    state.busy = false
                    return nil
                }
                return state.waiting.removeFirst()
            }
            next?.resume()
        }
    }
}
