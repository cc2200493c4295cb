
/// How many sleeps wait on a `ManualClock`, and the tasks waiting for that
/// number to reach theirs (`ManualClock.waitForSleepers`).
final class SleeperCount: Sendable {
    private struct State {
        var sleepers = 0
        var waiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state = Guarded(State())

    var value: Int { state.withLock { $0.sleepers } }

    func add() {
        let ready = state.withLock { state in
            state.sleepers += 1
            let count = state.sleepers
            let ready = state.waiters.filter { $0.count <= count }
            state.waiters.removeAll { $0.count <= count }
            return ready
        }
        for waiter in ready { waiter.continuation.resume() }
    }

    func remove() {
        state.withLock { $0.sleepers -= 1 }
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
}
