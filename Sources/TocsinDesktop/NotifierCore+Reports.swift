import TocsinBase

/// What the notifier reports to its host (shown, dismissed, a button, a
/// failure), each failure's reason also said once on standard error.
extension NotifierCore {
    func report(_ kind: NotifierReport.Kind, _ key: AlertKey, _ detail: String, _ failure: TocsinNotifyFailure?,
                notification: UInt32? = nil, finish: Bool = false) {
        let error: TocsinError? = failure.map { $0.code == .io ? .io : .unavailable }
        deliver(NotifierReport(kind: kind, timer: timerID(key), detail: detail, error: error, newTimer: nil, host: key.host,
                               notification: notification, finish: finish))
        guard let failure else { return }
        let first = lock.withLock {
            let first = !loggedReasons.containsSame(failure.reason)
            if first { loggedReasons.append(failure.reason) }
            return first
        }
        if first && !options.quiet {
            Descriptor.complain("tocsin-notify: \(failure.reason)")
        }
    }

    func deliver(_ report: NotifierReport) {
        let handler = lock.withLock { reportHandler }
        handler?(report)
    }

    func timerID(_ key: AlertKey) -> TimerID? {
        key.host == nil ? nil : TimerID(rawValue: key.timer)
    }
}
