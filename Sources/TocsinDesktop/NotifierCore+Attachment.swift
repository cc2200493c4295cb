package import TocsinBase

/// Attaching timers of a host (an engine) and following their events.
extension NotifierCore {
    /// Silences and dismisses an alert (what the Stop button does); false
    /// if the timer has no alert attached.
    package func stop(_ key: AlertKey) -> Bool {
        let attached = lock.withLock { attachments[key] != nil }
        if attached { withdraw(key) }
        return attached
    }

    /// `notification`: the server id of this timer's notification shown by
    /// an earlier process, replaced by the first one shown now.
    package func attach(_ timer: UInt64, host: any AlertHost, alert: Alert, notification: UInt32? = nil) throws(TocsinError) {
        try lock.withLock { () throws(TocsinError) in try attachLocked(timer, host: host, alert: alert, notification: notification) }
    }

    private func attachLocked(_ timer: UInt64, host: any AlertHost, alert: Alert, notification: UInt32?) throws(TocsinError) {
        guard !closed else { throw .closed }
        let hostID = host.hostID
        let key = AlertKey(host: hostID, timer: timer)
        let firstOfHost = !attachments.keys.contains { $0.host == hostID }
        if firstOfHost {
            // By the host's id, not the host: the engine holds this closure,
            // and the host holds the engine.
            let observing = host.observe { [self] timer, event in
                hostEvent(event, timer: timer, host: hostID)
            }
            guard observing else { throw .closed }
        }
        attachments[key] = Attachment(alert: alert, host: host)
        hosts[hostID] = host
        if let notification { glib.run { [self] in presenter.adopt(notification, for: key) } }
        // A timer already running is shown (and its warning awaited) at once,
        // as it was when attached: a fresh reading on the GLib thread could
        // be ahead of another timer's event still on its way from the
        // engine's delivery thread, and show the two out of order.
        if alert.followsTime {
            let reading = host.reading(of: timer)
            glib.run { [self] in followTime(key, because: .attached, reading: reading) }
        }
    }

    /// Stops alerting for `key`; false if it was not attached.
    @discardableResult
    package func detach(_ key: AlertKey) -> Bool {
        let (removed, idleHost) = lock.withLock {
            let removed = attachments.removeValue(forKey: key)
            let lastOfHost = removed != nil && !attachments.keys.contains { $0.host == key.host }
            return (removed, lastOfHost ? key.host.flatMap { hosts.removeValue(forKey: $0) } : nil)
        }
        // Outside the lock: stopping waits for a running observer, which takes the lock.
        idleHost?.stopObserving()
        if removed != nil { withdraw(key) }
        return removed != nil
    }

    /// Detaches every timer of one host (its engine is about to go).
    package func forgetHost(_ hostID: ObjectIdentifier) {
        let keys = lock.withLock { attachments.keys.filter { $0.host == hostID } }
        for key in keys { detach(key) }
        let host = lock.withLock { hosts.removeValue(forKey: hostID) }
        host?.stopObserving()
    }

    /// A timer of an attached engine changed; on the engine's delivery thread.
    private func hostEvent(_ event: HostEvent, timer: UInt64, host hostID: ObjectIdentifier) {
        let key = AlertKey(host: hostID, timer: timer)
        let attachment = lock.withLock { closed ? nil : attachments[key] }
        guard let attachment else { return }
        let alert = attachment.alert
        let host = attachment.host
        switch event {
        case .finished where !alert.announcedByHost:
            presentFinish(key, alert: alert, host: host)
        case .finished:
            break  // the host calls `announceFinish` once it has recorded it
        case .running where alert.followsTime, .suspended where alert.followsTime:
            lock.withLock { alarms[key] = nil }  // run again: its live notification takes over
            if event == .running { sound.post(.stop(key)) }
            glib.run { [self] in followTime(key, because: .changed(event)) }
        case .running:
            let keep = lock.withLock { alarms[key]?.snoozed == true }  // it says "Snoozed" until the next ring replaces it
            if !keep { withdraw(key) }
        case .canceled:
            withdraw(key)
        case .suspended:
            break
        }
    }
}
