import TocsinBase

/// A button of a notification: its action id and its label.
struct AlertButton: Sendable, Equatable {
    let action: String
    let label: String

    static func == (a: AlertButton, b: AlertButton) -> Bool {
        a.action.isSame(as: b.action) && a.label.isSame(as: b.label)  // (see Text.swift)
    }

    // (Labels in the user's language, read each time: a service's may change.)
    static var stop: AlertButton { AlertButton(action: "stop", label: tr("Stop")) }
    static var restart: AlertButton { AlertButton(action: "restart", label: tr("Restart")) }
    // TRANSLATORS: a button: one more minute on the timer.
    static var snooze: AlertButton { AlertButton(action: "snooze", label: tr("+1 min")) }
    /// The alarm's Snooze of an alert with its own length: "Snooze 5 min".
    static func snooze(for nanoseconds: Int64) -> AlertButton {
        AlertButton(action: "snooze", label: tr("Snooze {length}", ["length": Wording.duration(nanoseconds)]))
    }
    static var pause: AlertButton { AlertButton(action: "pause", label: tr("Pause")) }
    static var resume: AlertButton { AlertButton(action: "resume", label: tr("Resume")) }
    static var cancel: AlertButton { AlertButton(action: "cancel", label: tr("Cancel")) }
    /// The upcoming-alarm notice's: the coming ring does not sound.
    static var skip: AlertButton { AlertButton(action: "skip", label: tr("Skip this one")) }
}

/// What the live notification of a running or paused timer shows, and when
/// that next changes. Pure (no desktop): the notifier asks it after every
/// reading of the timer.
enum LiveDisplay {
    static let second = Nanos.perSecond
    /// How often the overtime line ("Ran out 0:20 ago") moves on.
    static let overtimeStep: Int64 = 10 * second

    /// One state of the notification.
    struct Frame: Equatable {
        var summary: String
        var body: String
        /// Percent done, for servers that draw the `value` hint; nil: none.
        var value: Int32?
        var urgency: Alert.Urgency
        var buttons: [AlertButton]

        /// The same text, urgency and buttons: the percentage alone (which
        /// moves at every look) is no reason to send a notification again.
        static func == (a: Frame, b: Frame) -> Bool {
            a.summary.isSame(as: b.summary) && a.body.isSame(as: b.body) && a.urgency == b.urgency && a.buttons == b.buttons
        }
    }

    /// The times left a running timer's frame says in words ("1 minute left").
    static let milestones: Set<Int64> = [300 * second, 60 * second, 10 * second]

    /// The frame for a running or paused timer; nil in any other state.
    /// `warning`: nanoseconds before zero the warning is given; `warned`: it
    /// has been; `announcing`: this is the frame that gives it.
    static func frame(label: String, reading: HostReading, warning: Int64?, warned: Bool, announcing: Bool) -> Frame? {
        guard reading.state == .running || reading.state == .suspended else { return nil }
        let paused = reading.state == .suspended
        var body: String
        var value: Int32?
        if let remaining = reading.remaining {
            // In words at the warning, and at 5 min, 1 min and 10 s: what a
            // screen reader reading the update says plainly.
            let shown = (remaining + second - 1) / second * second  // the whole seconds the clock shows
            let words = announcing ? warning ?? remaining : milestones.contains(shown) && !paused ? shown : nil
            body = tr("{time} left", ["time": words.map(Wording.phrase) ?? Wording.clock(remaining, roundUp: true)])
            let duration = reading.elapsed.addingReportingOverflow(remaining)
            if !duration.overflow, duration.partialValue > 0 {
                value = Int32(clamping: Int64(Double(reading.elapsed) / Double(duration.partialValue) * 100))
            }
        } else {
            body = tr("{time} elapsed", ["time": Wording.clock(reading.elapsed, roundUp: false)])
        }
        // TRANSLATORS: after "4:59 left" in a paused timer's notification (keep the space).
        if paused { body += tr(" · paused") }
        var buttons = [paused ? AlertButton.resume : .pause]
        if reading.remaining != nil { buttons.append(.snooze) }
        buttons.append(.cancel)
        return Frame(summary: label, body: body, value: value, urgency: warned ? .normal : .low, buttons: buttons)
    }

    /// Nanoseconds until the frame of a running timer changes or its warning
    /// falls due; nil while it is not running (nothing moves).
    static func nextChange(of reading: HostReading, warning: Int64?, warned: Bool) -> Int64? {
        guard reading.state == .running else { return nil }
        guard let remaining = reading.remaining else {
            return second - reading.elapsed % second  // the elapsed seconds tick up
        }
        guard remaining > 0 else { return second }  // FINISH is on its way; look again if it is not
        var next = (remaining - 1) % second + 1  // until the shown seconds count down by one
        if let warning, !warned, remaining > warning { next = min(next, remaining - warning) }
        return next
    }

    /// The least time between two live frames of one timer sent by the
    /// beat: a second, less the beat's own jitter.
    static let minimumGap: Int64 = 9 * second / 10

    /// How many notifications left by an earlier process one look closes.
    static let straysPerLook = 8

    /// How many timers the summary notification names before "…".
    static let summaryLines = 5

    /// A live timer's place: the running countdown ending soonest first,
    /// then running stopwatches, then paused timers.
    static func rank(_ reading: HostReading) -> Int64 {
        switch (reading.state, reading.remaining) {
        case (.running, let remaining?): max(0, remaining)
        case (.running, nil): Int64.max / 4
        default: Int64.max / 2 + min(reading.remaining ?? 0, Int64.max / 4)
        }
    }

    /// A timer's line in the summary: "Rice 3:12", "Eggs 7:40 paused",
    /// "Run 12:03" (a stopwatch's time elapsed).
    static func brief(label: String, reading: HostReading) -> String {
        let time = reading.remaining.map { Wording.clock($0, roundUp: true) } ?? Wording.clock(reading.elapsed, roundUp: false)
        // TRANSLATORS: after "Rice 3:12" in the summary's line of a paused timer (keep the space).
        return "\(label) \(time)" + (reading.state == .suspended ? tr(" paused") : "")
    }

    /// True when the warning is due now.
    static func warningDue(_ reading: HostReading, warning: Int64?, warned: Bool) -> Bool {
        guard reading.state == .running, let warning, let remaining = reading.remaining else { return false }
        return !warned && remaining <= warning
    }

    /// The alarm's body with how long ago it went off, in steps of 10 s.
    static func overtime(_ base: String, since: Int64, alarm: Bool) -> String {
        let shown = since - since % overtimeStep
        let ago = Wording.clock(shown, roundUp: false)
        return base + "\n" + (alarm ? tr("Rang {time} ago", ["time": ago]) : tr("Ran out {time} ago", ["time": ago]))
    }

    /// Nanoseconds until the overtime line moves on.
    static func nextOvertime(since: Int64) -> Int64 {
        overtimeStep - since % overtimeStep
    }
}
