import TocsinBase

/// An alarm's upcoming-alarm notice (`Alert.notice`): from that long before
/// the ring, "Rings at 07:00, in 30 min" with Skip this one, until the ring
/// replaces it or the ring moves away (a skip, an adjust, a clock change).
/// GLib thread only.
extension NotifierCore {
    /// The notice frame of a timer, if one is due now.
    func noticeFrame(_ alert: Alert, label: String, _ reading: HostReading) -> LiveDisplay.Frame? {
        guard let notice = alert.notice?.nanoseconds, reading.isAlarm, reading.state == .running,
              let remaining = reading.remaining, remaining > 0, remaining <= notice else { return nil }
        return LiveDisplay.notice(label: label, remaining: remaining, ringsAt: Clocks.realtime() + remaining)
    }

    /// Shows the notice of a timer that is not live, or closes the one shown
    /// once it is no longer due. True if the notice has the notification
    /// (the warning then waits).
    func showNotice(_ state: inout Following, _ key: AlertKey, _ alert: Alert, frame: LiveDisplay.Frame?) -> Bool {
        guard let frame, alert.popup, !state.hushed else {
            if state.noticeShown {
                state.noticeShown = false
                if state.alarm == nil {  // (the ring's alert took the notification)
                    presenter.close(key)
                    state.shownFrame = nil
                }
            }
            return false
        }
        state.noticeShown = true
        showFrame(&state, key, frame, alert: alert)
        return true
    }

    /// A calendar alarm rang (its alert shown, or its ring ran out) and runs
    /// on: its next ring's notice is awaited from now, even if the person
    /// closed the last one. Without this, the look that awaits the notice
    /// would be the one the last notice left, up to a minute late, or none
    /// after a ring ran out (it stops following the timer).
    func awaitNextNotice(_ key: AlertKey) {
        let runsOn = lock.withLock {
            guard let attachment = attachments[key], attachment.alert.notice != nil, !attachment.alert.live else { return false }
            return attachment.host.reading(of: key.timer)?.state == .running
        }
        if runsOn { followTime(key, because: .rang) }
    }

    /// Nanoseconds until the notice falls due; nil if none is awaited. At
    /// most a minute: the ring may have moved meanwhile without an event (a
    /// wall-clock change).
    func nextNoticeLook(_ reading: HostReading, alert: Alert, state: Following) -> Int64? {
        guard let notice = alert.notice?.nanoseconds, reading.isAlarm, reading.state == .running,
              let remaining = reading.remaining, remaining > 0 else { return nil }
        return remaining > notice ? min(remaining - notice, 60 * LiveDisplay.second) : 60 * LiveDisplay.second
    }
}

extension LiveDisplay {
    /// The upcoming-alarm notice: "Wake" / "Rings at 07:00, in 30 min".
    static func notice(label: String, remaining: Int64, ringsAt: Int64) -> Frame {
        let minutes = (remaining + 60 * second - 1) / (60 * second) * 60 * second  // "in 30 min", never "in 0 min"
        let time = Wording.localTimeOfDay(unixSeconds: (ringsAt + second - 1) / second)
        return Frame(summary: label, body: tr("Rings at {time}, in {length}", ["time": time, "length": Wording.duration(minutes)]), value: nil,
                     urgency: .normal, buttons: [.skip])
    }
}

extension LiveDisplay {
    /// A live alarm's frame while its notice is due: its own text, the
    /// notice's line, and Skip this one first.
    static func withNotice(_ frame: Frame, _ notice: Frame) -> Frame {
        var merged = frame
        merged.body += "\n" + notice.body
        merged.buttons = notice.buttons + frame.buttons
        return merged
    }
}
