import TocsinBase

/// Waiting for the alerts and sounds under way, and closing: everything
/// silenced and withdrawn, both threads stopped, the cycles through their
/// callbacks broken.
extension NotifierCore {
    var isClosed: Bool {
        lock.withLock { closed }
    }

    func finishOne() {
        lock.withLock {
            pending -= 1
            lock.broadcast()
        }
    }

    func flush(timeout: Duration) -> Bool {
        let deadline = Clocks.monotonic() + timeout.nanoseconds
        return lock.withLock {
            while pending > 0 {
                let left = deadline - Clocks.monotonic()
                if left <= 0 || !lock.wait(nanoseconds: left) && Clocks.monotonic() >= deadline { break }
            }
            return pending == 0
        }
    }

    /// Silences everything, withdraws every alert, stops the threads and
    /// breaks the cycles through their callbacks. Closing twice does nothing.
    func close() {
        let taken = lock.withLock { () -> (hosts: [any AlertHost], keys: [AlertKey])? in
            guard !closed else { return nil }
            closed = true
            defer { (hosts, attachments) = ([:], [:]) }
            return (Array(hosts.values), Array(attachments.keys))
        }
        guard let (hostsToStop, keys) = taken else { return }
        for host in hostsToStop { host.stopObserving() }
        for key in keys { sound.post(.stop(key)) }
        glib.run { [self] in
            for key in Array(following.keys) { stopFollowing(key) }  // cancels their timeouts, which hold self
            fader.endAll()  // the players' volume back
            stopBeat()
            presenter.closeAll()
            presenter.dropCallbacks()
        }
        sound.shutDown()  // also drops its callbacks
        glib.stop()
    }
}
