import TocsinBase

/// A sleep timer (`Alert.media`), GLib thread only: the players' volume
/// falling over its fade before zero, a step every half second on the
/// notifier's own GLib timeouts (never the host's thread), then the Pause
/// or Stop at zero and the volumes put back.
///
/// The fade follows the timer's time as it is at each step: paused,
/// cancelled or given more than its fade again, the fade ends and the
/// players get their volume back; at zero (the timer finished, its alarm
/// not yet presented) the volumes stay low until `mediaAtZero` acts.
extension NotifierCore {
    /// Starts or ends the fade of `key` as its `reading` says; part of each
    /// look at the timer (`followTime`).
    func settleMediaFade(_ key: AlertKey, _ alert: Alert, _ reading: HostReading) {
        guard let fade = alert.mediaFade else { return }
        if reading.state == .finished { return }  // zero: the finish acts
        guard reading.state == .running, let remaining = reading.remaining,
              MediaAction.fadeLevel(remaining: remaining, fade: fade) != nil
        else { return endMediaFade(key) }
        if fader[key] == nil {
            fader.begin(key, length: max(remaining, 1))
            stepMediaFade(key)
        }
    }

    /// Nanoseconds until a sleep timer's fade begins; nil if it has begun,
    /// has none, or the timer does not run. Looked at least every minute
    /// (the time may be changed meanwhile).
    func nextMediaFadeLook(_ key: AlertKey, _ reading: HostReading, alert: Alert) -> Int64? {
        guard let fade = alert.mediaFade, fader[key] == nil, reading.state == .running,
              let remaining = reading.remaining, remaining > fade else { return nil }
        return min(remaining - fade, 60 * Nanos.perSecond)
    }

    /// One step of the fade: the volumes set to the share of the fade
    /// left, and the next step scheduled (none at zero).
    private func stepMediaFade(_ key: AlertKey) {
        guard fader[key] != nil else { return }
        let looked = lock.withLock { () -> (Alert, HostReading)? in
            guard let attachment = attachments[key], let reading = attachment.host.reading(of: key.timer) else { return nil }
            return (attachment.alert, reading)
        }
        guard let (alert, reading) = looked, alert.mediaFade != nil, let length = fader[key]?.length else {
            return endMediaFade(key)
        }
        if reading.state == .finished { return }  // zero came between two steps
        guard reading.state == .running, let remaining = reading.remaining,
              let level = MediaAction.fadeLevel(remaining: remaining, fade: length)
        else {
            endMediaFade(key)
            // Given more time (an adjust sends no event): the next look
            // begins the fade again when it comes round.
            if reading.state == .running { followTime(key, because: .due) }
            return
        }
        fader.step(key, level: level)
        guard let wait = MediaAction.nextFadeStep(remaining: remaining) else { return }
        fader[key]?.source = glib.after(milliseconds: UInt32(clamping: (wait + 999_999) / 1_000_000)) { [self] in
            fader[key]?.source = 0
            stepMediaFade(key)
        }
    }

    /// Ends the fade of `key`, if one is under way, and gives the players
    /// their volume back.
    func endMediaFade(_ key: AlertKey) {
        glib.cancel(fader.end(key))
    }

    /// The finish of `key`: a sleep timer's players paused or stopped (and
    /// the count of them returned), or, for an alert without `media` (a
    /// late finish's), a fade under way ended, players untouched (nil).
    func mediaAtZero(_ key: AlertKey, _ alert: Alert) -> Int? {
        guard let action = alert.media else {
            endMediaFade(key)
            return nil
        }
        let (count, source) = fader.act(key, action)
        glib.cancel(source)
        return count
    }
}
