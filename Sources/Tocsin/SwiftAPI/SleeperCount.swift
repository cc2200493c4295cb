/// The sleeps that wait on a `ManualClock`'s machine, the tasks waiting for
/// their number to reach theirs (`waitForSleepers`), and the tasks a clock
/// change resumed that have not slept on the machine again (which
/// `advance(by:)` lets run before it moves the clock on).
final class SleeperCount: Sendable {
    private struct State {
        var sleepers = 0
        var waiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
        /// Tasks (by `UnsafeCurrentTask.hashValue`) resumed by a sleep's
        /// end that have not started another sleep on the machine.
        var running: Set<Int> = []
        var progressWaiter: (generation: Int, continuation: CheckedContinuation<Bool, Never>)?
        var generation = 0
        var expired = 0
        /// While an `advance` runs: the tasks it resumes are waited for.
        var tracking = false
    }

    private let state = Guarded(State())

    var value: Int { state.withLock { $0.sleepers } }

    /// A sleep is armed, by `task`: it no longer counts as running.
    func add(task: Int?) {
        typealias Woken = (ready: [CheckedContinuation<Void, Never>], progress: CheckedContinuation<Bool, Never>?)
        let (ready, progress) = state.withLock { state -> Woken in
            state.sleepers += 1
            let count = state.sleepers
            let ready = state.waiters.filter { $0.count <= count }.map(\.continuation)
            state.waiters.removeAll { $0.count <= count }
            guard let task, state.running.remove(task) != nil else { return (ready, nil) }
            defer { state.progressWaiter = nil }
            return (ready, state.progressWaiter?.continuation)
        }
        for waiter in ready { waiter.resume() }
        progress?.resume(returning: true)
    }

    /// A sleep ended; `resumed`: it returns to `task`, which now runs.
    func remove(task: Int?, resumed: Bool) {
        state.withLock { state in
            state.sleepers -= 1
            if resumed, state.tracking, let task { state.running.insert(task) }
        }
    }

    /// Starts or stops noting the tasks that sleeps' ends resume (an
    /// `advance` waits for those alone); stopping forgets them.
    func track(_ on: Bool) {
        state.withLock { state in
            state.tracking = on
            if !on { state.running.removeAll() }
        }
    }

    /// Returns once at least `count` sleeps wait.
    func wait(for count: Int) async {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state in
                if state.sleepers >= count { return true }
                state.waiters.append((count, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }

    /// Returns once every resumed task has slept on the machine again; a
    /// task that does not within `patience` of real time after the last
    /// one did (it ended, or waits on something other than the machine) is
    /// no longer waited for. From one task at a time.
    func settle(patience: Duration) async {
        while await progress(within: patience) {}
    }

    /// True when a running task sleeps again within `patience` (false at
    /// once if none runs); false when none did, and then none counts as running.
    private func progress(within patience: Duration) async -> Bool {
        let generation: Int? = state.withLock { state in
            guard !state.running.isEmpty else { return nil }
            state.generation += 1
            return state.generation
        }
        guard let generation else { return false }
        let expiry = Task {
            // Real time: the only reading of a real clock here. Cancelled,
            // it expires nothing (a later round has its own generation).
            guard (try? await Task.sleep(for: patience)) != nil else { return }
            expire(generation)
        }
        defer { expiry.cancel() }
        let progressed = await withCheckedContinuation { continuation in
            let now: Bool? = state.withLock { state in
                if state.running.isEmpty { return true }
                if state.expired >= generation {
                    state.running.removeAll()
                    return false
                }
                state.progressWaiter = (generation, continuation)
                return nil
            }
            if let now { continuation.resume(returning: now) }
        }
        return progressed && state.withLock { !$0.running.isEmpty }
    }

    private func expire(_ generation: Int) {
        let waiter: CheckedContinuation<Bool, Never>? = state.withLock { state in
            state.expired = max(state.expired, generation)
            guard let waiter = state.progressWaiter, waiter.generation == generation else { return nil }
            state.progressWaiter = nil
            state.running.removeAll()
            return waiter.continuation
        }
        waiter?.resume(returning: false)
    }
}
