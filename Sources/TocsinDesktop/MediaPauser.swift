import TocsinBase

/// Pauses the media players (MPRIS: `org.mpris.MediaPlayer2.*` on the
/// session bus) that are playing when an alarm starts to ring, and resumes
/// those, and only those, once no alarm rings any more (Stop, Snooze,
/// dismissal, the ring's end). A player the person paused, stopped or
/// closed meanwhile is left as it is. GLib thread only; each call to a
/// player waits at most half a second (`MediaBus`).
final class MediaPauser {
    /// The alarms ringing now (a key more than once if it rang again before
    /// its last ring was over).
    private var ringing: [AlertKey] = []
    /// The unique bus names of the players this paused.
    private var paused: [String] = []

    func ring(_ key: AlertKey, started: Bool) {
        let before = ringing.isEmpty
        if started {
            ringing.append(key)
        } else if let index = ringing.firstIndex(of: key) {
            ringing.remove(at: index)
        }
        if before && !ringing.isEmpty { pausePlaying() }
        if !before && ringing.isEmpty { resumePaused() }
    }

    private func pausePlaying() {
        guard let bus = MediaBus.session() else { return }
        for player in bus.players() where bus.status(of: player)?.isSame(as: "Playing") == true {
            if bus.call(player, "Pause") { paused.append(player) }
        }
    }

    private func resumePaused() {
        let players = paused
        paused = []
        guard let bus = MediaBus.session() else { return }
        for player in players where bus.status(of: player)?.isSame(as: "Paused") == true {
            _ = bus.call(player, "Play")
        }
    }
}
