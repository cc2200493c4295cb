import CTocsinSystem
import Glibc

extension TimerEngine {
    /// Closes the engine and frees every timer. When it returns no handler is
    /// running or will run: from another thread it waits for a running handler
    /// to return. Called from inside a handler it returns at once, and the
    /// engine is torn down when that handler returns. Later calls throw
    /// `.closed`; closing again does nothing.
    public func close() {
        let join: pthread_t? = core.withLockAndWaits { locked in
            guard !locked.core.closed else { return nil }
            locked.core.closed = true
            _ = locked.core.bumpBatchEpoch(for: nil)  // a batch out for delivery stops at once
            if locked.onDeliveringThread {
                return nil  // the delivery round tears down when the handler returns
            }
            if delivery == .engineThread, let thread = locked.core.engineThread {
                locked.core.closerJoinsEngineThread = true
                kernel?.signal()
                return thread  // the thread tears down on its way out
            }
            locked.wait { $0.deliveringThread != nil }
            locked.tearDown()
            return nil
        }
        if let join { pthread_join(join, nil) }
    }

    // MARK: - The engine thread (`.engineThread`)

    /// Starts the delivery thread with every signal blocked, so the host's
    /// signal handlers keep running on the host's own threads.
    func startEngineThread() throws(TocsinError) {
        let context = Unmanaged.passRetained(self).toOpaque()
        var blockAll = sigset_t()
        var previous = sigset_t()
        sigfillset(&blockAll)
        pthread_sigmask(SIG_SETMASK, &blockAll, &previous)
        var thread = pthread_t()
        let status = pthread_create(&thread, nil, { context in
            Unmanaged<TimerEngine>.fromOpaque(context.unsafelyUnwrapped).takeRetainedValue().runEngineThread()
            return nil
        }, context)
        pthread_sigmask(SIG_SETMASK, &previous, nil)
        guard status == 0 else {
            Unmanaged<TimerEngine>.fromOpaque(context).release()
            throw .io  // deinit closes the fds
        }
        core.withLock { $0.engineThread = thread }
    }

    /// Sleeps in the kernel until the timer expires or events are queued, then
    /// runs a delivery round, until closed. No wakeups while nothing is due.
    private func runEngineThread() {
        _ = tocsin_set_timer_slack(1)
        _ = tocsin_set_thread_name("tocsin")
        guard let kernel else { return }
        core.withLockAndWaits { locked in
            while !locked.core.closed {
                locked.unlocked { kernel.wait() }
                guard !locked.core.closed else { break }
                if let ranges = locked.core.takePrefault(), !locked.unlocked({ ranges.faultIn() }) {
                    locked.core.stopPrefaulting()
                }
                locked.core.deliveringThread = pthread_self()
                locked.core.queuedEventsDue = nil  // this round takes them
                _ = deliver(locked, until: bootClockNow())
                locked.endDelivery()
            }
            if !locked.core.closerJoinsEngineThread {
                pthread_detach(pthread_self())  // closed from a handler: nobody joins
            }
            locked.tearDown()
        }
    }
}
