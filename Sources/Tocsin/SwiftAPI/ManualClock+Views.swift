extension ManualClock {
    /// A `ManualClock` machine's awake clock: it moves with `advance`, not
    /// with `simulateSuspend` (sleeps on it pause, as on `AwakeClock`).
    /// Its `Instant` is its own: a boot or wall reading is not one.
    ///
    /// A value with a reference to its machine: safe to share.
    public struct Awake: Clock, Sendable {
        public typealias Instant = ClockInstant<Awake>

        let machine: Machine

        /// The machine's boot clock, which moves it.
        public var boot: ManualClock { ManualClock(machine: machine) }

        /// The time the machine has been awake since it was made.
        public var now: Instant { Instant(offset: .nanoseconds(machine.now(.awake))) }

        /// One nanosecond.
        public var minimumResolution: Duration { .nanoseconds(1) }

        /// Sleeps until this clock reads `deadline`; returns at once if it
        /// has passed.
        ///
        /// - Throws: `CancellationError` if the task is cancelled.
        public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
            try await machine.sleep(until: deadline.nanoseconds, on: .awake, tolerance: tolerance)
        }
    }

    /// A `ManualClock` machine's wall clock: simulated Unix time, read as a
    /// `WallClock.Instant` (so calendar occurrences and real wall readings
    /// compare with it), set by `setWallClock(to:)`; its sleeps follow it,
    /// as `WallClock`'s do.
    ///
    /// A value with a reference to its machine: safe to share.
    public struct Wall: Clock, Sendable {
        public typealias Instant = WallClock.Instant

        let machine: Machine

        /// The machine's boot clock, which moves it.
        public var boot: ManualClock { ManualClock(machine: machine) }

        /// The simulated Unix time.
        public var now: Instant { Instant(offset: .nanoseconds(machine.now(.wall))) }

        /// One nanosecond.
        public var minimumResolution: Duration { .nanoseconds(1) }

        /// Sleeps until this clock reads `deadline`: until an `advance`,
        /// `simulateSuspend` or `setWallClock` brings it there. Returns at
        /// once if it has passed.
        ///
        /// - Throws: `CancellationError` if the task is cancelled;
        ///   `TocsinError.invalidArgument` for a deadline more than 100
        ///   years after 1970.
        public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
            try await machine.sleep(until: deadline.nanoseconds, on: .wall, tolerance: tolerance)
        }
    }
}
