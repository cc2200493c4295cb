import CTocsinSystem
import Glibc

extension TimerEngine {
    /// Closes the engine and frees every timer. When it returns no handler is
    /// running or will run: from another thread it waits for a running handler
    /// to return. Called from inside a handler it returns at once, and the
    /// engine is torn down when that handler returns. Later calls throw
    /// `.closed`; closing again does nothing.
    public func close() {
        lock.lock()
        guard !closed else {
            lock.unlock()
            return
        }
        closed = true
        _ = bumpBatchEpoch(for: nil)  // a batch out for delivery stops at once
        if onDeliveringThread {
            lock.unlock()  // the delivery round tears down when the handler returns
            return
        }
        if delivery == .engineThread, let thread = engineThread {
            closerJoinsEngineThread = true
            kernel?.signal()
            lock.unlock()
            pthread_join(thread, nil)  // the thread tears down on its way out
            return
        }
        while deliveringThread != nil {
            waiters += 1
            lock.wait()
            waiters -= 1
        }
        let boxes = teardownLocked()
        lock.unlock()
        for box in boxes { box.release() }
    }

    /// Frees storage and fds once, and returns the Swift handlers for the
    /// caller to release after dropping the lock. Lock held (or no other
    /// reference left, from deinit).
    func teardownLocked() -> [Unmanaged<HandlerBox>] {
        guard !tornDown else { return [] }
        tornDown = true
        closed = true
        var boxes: [Unmanaged<HandlerBox>] = []
        slots.forEachLive { index in
            if let box = takeSwiftHandler(index) { boxes.append(box) }
        }
        slots.deallocate()
        heap.deallocate()
        pending.removeAll()
        for observer in observers {
            if let box = observer.box { boxes.append(Unmanaged.passRetained(box)) }
        }
        observers = []  // the closures live on in `boxes` until the lock is dropped
        labels = [:]
        laps = [:]
        ticks = [:]
        kernel?.close()
        return boxes
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
        lock.lock()
        engineThread = thread
        lock.unlock()
    }

    /// Sleeps in the kernel until the timer expires or events are queued, then
    /// runs a delivery round, until closed. No wakeups while nothing is due.
    private func runEngineThread() {
        _ = tocsin_set_timer_slack(1)
        _ = tocsin_set_thread_name("tocsin")
        guard let kernel else { return }
        lock.lock()
        while !closed {
            lock.unlock()
            kernel.wait()
            lock.lock()
            guard !closed else { break }
            deliveringThread = pthread_self()
            queuedEventsDue = nil  // this round takes them
            _ = deliverLocked(until: BootClock.now())
            endDelivery()
        }
        if !closerJoinsEngineThread {
            pthread_detach(pthread_self())  // closed from a handler: nobody joins
        }
        let boxes = teardownLocked()
        lock.unlock()
        for box in boxes { box.release() }
    }
}
