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

    /// One timer's fade: its players, its length in nanoseconds (the
    /// alert's fade, or less if the timer had less left when it began: the
    /// volume then falls from full over what is left, never jumps), and the
    /// GLib timeout of its next step (0: none).
    struct Fade {
        var players: [Faded] = []
        var length: Int64 = 0
        var source: UInt32 = 0
    }

    private var fades: [AlertKey: Fade] = [:]

    /// The timer's fade, if one is under way.
    subscript(key: AlertKey) -> Fade? {
        get { fades[key] }
        set { fades[key] = newValue }
    }

    /// Starts fading, over `length` ns, the players that play now and have
    /// a volume.
    func begin(_ key: AlertKey, length: Int64) {
        var fade = Fade(length: length)
        MediaBus.withSession { bus in
            for player in bus.players() where bus.status(of: player)?.isSame(as: "Playing") == true {
                if let volume = bus.volume(of: player) { fade.players.append(Faded(player: player, volume: volume)) }
            }
        }
        fades[key] = fade
    }

    /// Sets each faded player's volume to `level` (0...1) of what it had;
    /// one that no longer plays gets its volume back and leaves the fade,
    /// one that refuses the volume leaves it too.
    func step(_ key: AlertKey, level: Double) {
        guard var fade = fades[key] else { return }
        MediaBus.withSession { bus in
            fade.players = fade.players.filter { faded in
                guard bus.status(of: faded.player)?.isSame(as: "Playing") == true else {
                    bus.setVolume(faded.volume, of: faded.player)
                    return false
                }
                return bus.setVolume(faded.volume * level, of: faded.player)
            }
        }
        fades[key]?.players = fade.players
    }

    /// Ends the timer's fade without acting (it was paused, cancelled,
    /// given more time): the faded players get their volume back. Returns
    /// the pending step's timeout to cancel (0: none).
    func end(_ key: AlertKey) -> UInt32 {
        guard let fade = fades.removeValue(forKey: key) else { return 0 }
        if !fade.players.isEmpty {
            MediaBus.withSession { bus in
                for faded in fade.players { bus.setVolume(faded.volume, of: faded.player) }
            }
        }
        return fade.source
    }

    /// Zero: `action` on every player playing now, then the faded ones'
    /// volume put back (after the pause: never a loud moment). Returns how
    /// many players it paused or stopped, and the pending step's timeout
    /// to cancel (0: none).
    func act(_ key: AlertKey, _ action: MediaAction) -> (count: Int, source: UInt32) {
        let fade = fades.removeValue(forKey: key) ?? Fade()
        var count = 0
        MediaBus.withSession { bus in
            for player in bus.players() where bus.status(of: player)?.isSame(as: "Playing") == true {
                if bus.call(player, action.method) { count += 1 }
            }
            for faded in fade.players { bus.setVolume(faded.volume, of: faded.player) }
        }
        return (count, fade.source)
    }

    /// Every timer fading, to end at close.
    var keys: [AlertKey] { Array(fades.keys) }
}
