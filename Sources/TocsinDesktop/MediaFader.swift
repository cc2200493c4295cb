import TocsinBase

/// A sleep timer's work on the media players (MPRIS), GLib thread only:
/// their volume lowered step by step over its fade, then, at zero, every
/// playing player paused or stopped and each faded one's volume put back.
///
/// A player the person paused, stopped or closed during the fade is
/// dropped from it at the next step, its volume put back; one without a
/// writable Volume is not faded, only paused at zero. A player that starts
/// playing during the fade is not faded but is paused at zero. Each step
/// makes two calls per faded player, each waiting at most half a second
/// (`MediaBus`).
final class MediaFader {
    /// A player being faded: its unique bus name and the volume it had.
    struct Faded {
        var player: String
        var volume: Double
    }

    /// One timer's fade: its players, and its length in nanoseconds (the
    /// alert's fade, or less if the timer had less left when it began: the
    /// volume then falls from full over what is left, never jumps).
    struct Fade {
        var key: AlertKey
        var players: [Faded] = []
        var length: Int64 = 0
    }

    /// The fades under way: a few at most, so an array, searched by a plain
    /// loop (a dictionary, or closures over the array, would cost the
    /// Embedded library kilobytes).
    private var fades: [Fade] = []

    private func index(of key: AlertKey) -> Int? {
        for index in fades.indices where fades[index].key == key { return index }
        return nil
    }

    /// The length of the timer's fade, if one is under way.
    func length(of key: AlertKey) -> Int64? {
        index(of: key).map { fades[$0].length }
    }

    /// Starts fading, over `length` ns, the players that play now and have
    /// a volume.
    func begin(_ key: AlertKey, length: Int64) {
        var fade = Fade(key: key, length: length)
        if let bus = MediaBus.session() {
            for player in bus.players() where bus.status(of: player)?.isSame(as: "Playing") == true {
                if let volume = bus.volume(of: player) { fade.players.append(Faded(player: player, volume: volume)) }
            }
        }
        fades.append(fade)
    }

    /// Sets each faded player's volume to `level` (0...1) of what it had;
    /// one that no longer plays gets its volume back and leaves the fade,
    /// one that refuses the volume leaves it too.
    func step(_ key: AlertKey, level: Double) {
        guard let index = index(of: key), let bus = MediaBus.session() else { return }
        var kept: [Faded] = []
        for faded in fades[index].players {
            if bus.status(of: faded.player)?.isSame(as: "Playing") != true {
                bus.setVolume(faded.volume, of: faded.player)
            } else if bus.setVolume(faded.volume * level, of: faded.player) {
                kept.append(faded)
            }
        }
        fades[index].players = kept
    }

    /// Ends the timer's fade without acting (it was paused, cancelled,
    /// given more time): the faded players get their volume back.
    func end(_ key: AlertKey) {
        guard let index = index(of: key) else { return }
        let fade = fades.remove(at: index)
        guard !fade.players.isEmpty, let bus = MediaBus.session() else { return }
        for faded in fade.players { bus.setVolume(faded.volume, of: faded.player) }
    }

    /// Zero: `action` on every player playing now, then the faded ones'
    /// volume put back (after the pause: never a loud moment). Returns how
    /// many players it paused or stopped.
    func act(_ key: AlertKey, _ action: MediaAction) -> Int {
        let fade = index(of: key).map { fades.remove(at: $0) } ?? Fade(key: key)
        guard let bus = MediaBus.session() else { return 0 }
        var count = 0
        for player in bus.players() where bus.status(of: player)?.isSame(as: "Playing") == true {
            if bus.call(player, action.method) { count += 1 }
        }
        for faded in fade.players { bus.setVolume(faded.volume, of: faded.player) }
        return count
    }

    /// Ends every fade (the notifier closes): each faded player gets its
    /// volume back.
    func endAll() {
        while let fade = fades.last { end(fade.key) }
    }
}
