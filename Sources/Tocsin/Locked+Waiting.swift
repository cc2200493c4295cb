import Glibc
import Synchronization

/// The waits of the engine's calls: each sleeps with the lock dropped until
/// the delivering thread has moved past what the caller changed.
extension Locked {
    /// Blocks while another thread runs `handle`'s handler, alone or in a batch.
    func waitWhileDelivering(_ handle: UInt64) {
        guard !onDeliveringThread else { return }
        wait { $0.deliveringHandle == handle }
        waitWhileBatchRuns(handle)
    }

    /// Waits while another thread's batch runs `handle`'s handler.
    private func waitWhileBatchRuns(_ handle: UInt64) {
        let signals = core.batchSignals
        guard core.batchOut, signals.claim.load(ordering: .sequentiallyConsistent) == handle else { return }
        waitForBatch(signals.epoch.add(1, ordering: .sequentiallyConsistent).newValue, runningHandler: handle)
    }

    /// From a thread other than the delivering one: if the batch may be
    /// running `handle`'s handler (any handler, for nil), waits until the
    /// delivering thread has seen epoch `mine` (see `EngineCore.bumpBatchEpoch`),
    /// which it does right after that handler returns.
    func waitForBatch(_ mine: UInt64?, runningHandler handle: UInt64?) {
        guard let mine, !onDeliveringThread else { return }
        let claimed = core.batchSignals.claim.load(ordering: .sequentiallyConsistent)
        guard claimed != 0, handle == nil || claimed == handle else { return }
        wait { $0.batchOut && $0.batchAcked < mine }
    }

    /// Claims delivery for this thread, after any other thread's round.
    func beginDelivery() throws(TocsinError) {
        guard !onDeliveringThread else { throw .wrongState }
        wait { $0.deliveringThread != nil && !$0.closed }
        guard !core.closed else { throw .closed }
        core.deliveringThread = pthread_self()
    }

    /// Ends a delivery round: wakes waiters and re-arms the kernel timer, or
    /// tears the engine down if it was closed meanwhile.
    func endDelivery() {
        core.endRound()
        wakeWaiters()
        if core.closed { tearDown() }
    }

    /// Tears the engine down (once) and releases the Swift handlers with the
    /// lock dropped: their captures may call back in.
    func tearDown() {
        let boxes = core.teardown()
        guard !boxes.isEmpty else { return }
        unlocked { for box in boxes { box.release() } }
    }
}
