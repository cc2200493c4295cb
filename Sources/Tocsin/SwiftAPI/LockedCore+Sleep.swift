/// The clocks' one call into the engine per sleep.
extension LockedCore {
    /// Creates and starts a countdown of `nanoseconds` on `clock`, with
    /// `leeway`, whose FINISH alone goes to `handler`: what a sleep arms,
    /// under one lock instead of six.
    ///
    /// - Throws: `.invalidArgument` for a duration out of range, `.closed`,
    ///   `.outOfMemory`; the handler is released on failure.
    func startSleep(
        nanoseconds: Int64, clock: TimerClock, leeway: Int64, handler: @escaping @Sendable (TimerEvent) -> Void
    ) throws(TocsinError) -> TimerID {
        guard nanoseconds > 0, nanoseconds <= Nanos.max else { throw .invalidArgument }
        let box = Unmanaged.passRetained(HandlerBox(handler))
        let realNow = clockBeforeLock()
        do {
            return try withLock { core throws(TocsinError) in
                let index = try core.newSlot(duration: nanoseconds)
                _ = core.installHandler(index, callback: nil, context: box.toOpaque(), isSwift: true)
                core.setEvents(.finish, of: index)
                do throws(TocsinError) {
                    if clock == .awake { try core.setClock(.awake, of: index) }
                    if leeway > 0 { try core.setLeeway(leeway, of: index) }
                    core.catchUpClocks(of: index)
                    try core.start(index, at: realNow ?? core.manualNow)
                } catch {
                    _ = core.free(index)  // hands the box back: released below
                    throw error
                }
                return TimerID(rawValue: core.slots.handle(of: index))
            }
        } catch {
            box.release()
            throw error
        }
    }

    /// The awake clock (`CLOCK_MONOTONIC`; manual: the boot clock less the
    /// time suspended), in ns.
    func awakeNowNanoseconds() throws(TocsinError) -> Int64 {
        try withOpenCore { core in
            core.delivery == .manualClock ? core.manualNow - core.manualSuspended : Clocks.monotonic()
        }
    }
}

extension LockedCore {
    /// The boot-clock time (ns) of the earliest armed timer's deadline (a
    /// leeway's key where it has one); nil if none is armed or the engine closed.
    func nextDeadline() -> Int64? {
        try? withOpenCore { core in
            core.dropStaleTops()
            return core.heap.top?.deadline
        }
    }
}
