import TocsinBase

/// A sleep timer (`Alert.media`), GLib thread only: the players' volume
/// falling over its fade before zero, then the Pause or Stop at zero and
/// the volumes put back.
///
/// The fade is part of following the timer's time (`followTime`): each
/// look at the timer during the fade is a step, and the next look comes
/// half a second later, on the notifier's own GLib timeout (never the
/// host's thread). So it follows the timer as it is at each step: paused
/// or cancelled, the fade ends and the players get their volume back;
/// given more time, it ends and begins again when it comes round; at zero
/// (the timer finished, its alarm not yet presented) the volumes stay low
/// until `mediaAtZero` acts.
extension NotifierCore {
    /// Begins, steps or ends the fade of `key` as its `reading` says; part
    /// of each look at the timer.
    func settleMediaFade(_ key: AlertKey, _ alert: Alert, _ reading: HostReading) {
        guard let fade = alert.mediaFade else { return }
        if reading.state == .finished { return }  // zero: the finish acts
        guard reading.state == .running, let remaining = reading.remaining,
              MediaAction.fadeLevel(remaining: remaining, fade: fade) != nil
        else { return endMediaFade(key) }
        // Begun with less time left than the fade, it falls from full over
        // what is left; given more time since (within the fade), it begins
        // again from there.
        if let length = fader.length(of: key), remaining > length { endMediaFade(key) }
        if fader.length(of: key) == nil { fader.begin(key, length: max(remaining, 1)) }
        let level = MediaAction.fadeLevel(remaining: remaining, fade: fader.length(of: key) ?? fade) ?? 1
        fader.step(key, level: level)
    }

    /// Nanoseconds until the next look for a sleep timer's fade: its next
    /// step while it fades, else its beginning (at least every minute: the
    /// time may be changed meanwhile); nil if it has no fade or does not run.
    func nextMediaFadeLook(_ key: AlertKey, _ reading: HostReading, alert: Alert) -> Int64? {
        guard let fade = alert.mediaFade, reading.state == .running, let remaining = reading.remaining else { return nil }
        if fader.length(of: key) != nil { return MediaAction.nextFadeStep(remaining: remaining) }
        return remaining > fade ? min(remaining - fade, 60 * Nanos.perSecond) : nil
    }

    /// Ends the fade of `key`, if one is under way, and gives the players
    /// their volume back.
    func endMediaFade(_ key: AlertKey) {
        fader.end(key)
    }

    /// The finish of `key`: a sleep timer's players paused or stopped (and
    /// the count of them returned), or, for an alert without `media` (a
    /// late finish's), a fade under way ended, players untouched (nil).
    func mediaAtZero(_ key: AlertKey, _ alert: Alert) -> Int? {
        guard let action = alert.media else {
            endMediaFade(key)
            return nil
        }
        return fader.act(key, action)
    }
}
