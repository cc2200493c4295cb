
/// One `Clock.sleep` on an engine: a countdown (or alarm) whose FINISH
/// resumes the sleeping task, and the race between that finish, the task's
/// cancellation and the arming itself, settled under a lock. Whoever settles
/// it first resumes the task once; the timer is freed either way.
final class Sleeper: Sendable {
    private enum Phase {
        case arming
        case waiting(UnsafeContinuation<Void, any Error>, TimerID?)
        case settled
    }

    private let phase = Guarded(Phase.arming)
    private let engine: TimerEngine
    private let counter: SleeperCount?
    /// The sleeping task, for `counter` (`UnsafeCurrentTask.hashValue`).
    private let task: Int?

    private init(engine: TimerEngine, counter: SleeperCount?, task: Int?) {
        self.engine = engine
        self.counter = counter
        self.task = task
    }

    /// Sleeps until the timer `arm` makes and starts finishes: `arm` gets
    /// the handler to give it. Cancellation of the task ends the sleep at
    /// once with `CancellationError` and frees the timer.
    static func sleep(
        on engine: TimerEngine, counter: SleeperCount? = nil,
        arm: (_ sleeper: Sleeper) throws(TocsinError) -> TimerID
    ) async throws {
        let task = counter == nil ? nil : withUnsafeCurrentTask { $0?.hashValue }
        let sleeper = Sleeper(engine: engine, counter: counter, task: task)
        try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation { continuation in
                sleeper.wait(continuation, arm: arm)
            }
        } onCancel: {
            sleeper.settle(throwing: CancellationError())
        }
    }

    private func wait(
        _ continuation: UnsafeContinuation<Void, any Error>, arm: (Sleeper) throws(TocsinError) -> TimerID
    ) {
        let cancelled = phase.withLock { phase in
            guard case .arming = phase else { return true }
            phase = .waiting(continuation, nil)
            return false
        }
        if cancelled { return continuation.resume(throwing: CancellationError()) }
        let timer: TimerID
        do {
            timer = try arm(self)
        } catch {
            counter?.add(task: task)  // (settle takes it off again)
            return settle(throwing: error)
        }
        // Counted once armed: a test that sees it waiting (`waitForSleepers`)
        // and advances the clock finds the timer in place, not one armed
        // after the advance and so that much late. (A finish or cancel
        // before this line took it off first: the count ends even.)
        counter?.add(task: task)
        let settled = phase.withLock { phase in
            guard case .waiting(let continuation, nil) = phase else { return true }
            phase = .waiting(continuation, timer)
            return false
        }
        if settled { try? engine.free(timer) }  // cancelled while it was armed
    }

    /// The timer's handler: its FINISH ends the sleep.
    var handler: @Sendable (TimerEvent) -> Void {
        { [self] event in
            if event.kind == .finish { settle(throwing: nil, freeing: event.timer) }
        }
    }

    /// Resumes the task (normally, or throwing `error`) unless it was
    /// resumed already, and frees the timer.
    private func settle(throwing error: (any Error)?, freeing finished: TimerID? = nil) {
        let taken: (UnsafeContinuation<Void, any Error>, TimerID?)? = phase.withLock { phase in
            switch phase {
            case .arming:
                phase = .settled  // cancelled before it waited: `wait` resumes it
                return nil
            case .waiting(let continuation, let timer):
                phase = .settled
                return (continuation, timer)
            case .settled:
                return nil
            }
        }
        if let timer = finished ?? taken?.1 { try? engine.free(timer) }
        guard let (continuation, _) = taken else { return }
        counter?.remove(task: task, resumed: error == nil)
        if let error { continuation.resume(throwing: error) } else { continuation.resume() }
    }
}
