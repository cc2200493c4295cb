import TocsinBase

/// What the owner of a timer chooses about its alarm: one value from the
/// command's options or the service's `Add` options, through the service's
/// journal, to the `Alert` the notifier shows (`Alert(_:summary:body:)`).
///
/// Each setting is a `Field`: its name (the `Add` option and the journal
/// member), how it is coded, its limits and what a record written before
/// it existed means. The service's option and journal codings work field
/// by field from these, so a new setting is a property and a `Field` case
/// here, its use in `Alert`, and its option in the command.
package struct AlarmSettings: Sendable, Hashable {
    /// Show a notification at the finish (false: sound only). Option `alert`.
    package var popup = true
    /// Play the alarm's sound (and the warning's).
    package var sound = true
    /// A live notification while the timer runs or is paused.
    package var live = true
    /// Nanoseconds before zero to warn (0: no warning).
    package var warning: Int64 = 0
    /// How long Snooze puts the alarm off, in nanoseconds (0: no Snooze;
    /// the button is "+1 min").
    package var snooze = AlarmSettings.defaultSnooze
    /// How long the sound rings unless stopped, in nanoseconds (0: once).
    package var ring = AlarmSettings.defaultRing
    /// The alarm's own sound file, an absolute path (nil: the theme's).
    package var soundFile: String?
    /// The alarm's volume in dB (`Alert.volumeRange`; 0: as the sound is).
    package var volume = 0.0
    /// Nanoseconds over which the ring rises to its volume (0: at once).
    package var fade: Int64 = 0
    /// Pause the media players that play while the alarm rings.
    package var pausesMedia = true
    /// An alarm's upcoming-alarm notice: nanoseconds before each ring to
    /// show it, with Skip this one (0: none).
    package var notice: Int64 = 0
    /// Play a sound with the warning before zero (false: the warning is
    /// text only).
    package var warningSound = true
    /// A sleep timer: pause or stop the playing media players at zero
    /// (after `fade`, then their fall), with no sound (`MediaAction`); nil:
    /// an alarm as the others say. Option `media`: "pause", "stop" or ""
    /// (none).
    package var media: MediaAction?

    /// The snooze of a timer added without the option `snooze`: 5 min.
    package static let defaultSnooze: Int64 = 300 * Nanos.perSecond
    /// The ring of a timer added without the option `ring`: 1 min.
    package static let defaultRing: Int64 = 60 * Nanos.perSecond

    package init() {}
}

extension AlarmSettings {
    /// One setting: its name is the service's `Add` option, `List` property
    /// and journal member (with `unit`'s suffix).
    package enum Field: String, CaseIterable, Sendable {
        case alert, sound, live, warn, snooze, ring
        case soundFile = "sound_file", volume, fade
        case pauseMedia = "pause_media"
        case notice
        case warnSound = "warn_sound"
        case media

        /// How a field's value is coded.
        package enum Unit: Sendable {
            /// On or off.
            case flag
            /// A duration: seconds in D-Bus, `NAME_ns` in the journal.
            case nanoseconds
            /// A string; empty: none.
            case text
            /// Decibels: a double in D-Bus, `NAME_mdb` (thousandths) in the journal.
            case decibels
            /// One of `choices` as a string; empty: none.
            case choice
        }

        package var unit: Unit {
            switch self {
            case .alert, .sound, .live, .pauseMedia, .warnSound: .flag
            case .warn, .snooze, .ring, .fade, .notice: .nanoseconds
            case .soundFile: .text
            case .volume: .decibels
            case .media: .choice
            }
        }

        /// The words a `.choice` field takes (besides "" for none); empty
        /// for other units.
        package var choices: [String] {
            self == .media ? ["pause", "stop"] : []  // (MediaAction's names)
        }

        /// The values a duration may take, in nanoseconds, and how they are
        /// said in an error; nil for other units.
        package var limits: (range: ClosedRange<Int64>, said: String)? {
            switch self {
            case .warn: (0...86400 * Nanos.perSecond, "at most 86400 seconds")
            case .snooze: (Nanos.perSecond...86400 * Nanos.perSecond, "1 to 86400 seconds (24 h)")
            case .ring: (0...3600 * Nanos.perSecond, "at most 3600 seconds (0: play the sound once)")
            case .fade: (0...300 * Nanos.perSecond, "at most 300 seconds")
            case .notice: (0...86400 * Nanos.perSecond, "at most 86400 seconds (24 h)")
            default: nil
            }
        }

        /// What a journal record without the member means (it was written
        /// before the setting existed); nil: every record has it.
        package var meaningWhenAbsent: Value? {
            switch self {
            case .alert, .sound: nil
            case .live: .flag(true)  // before 0.5
            case .warn, .fade, .notice: .nanoseconds(0)
            case .snooze: .nanoseconds(AlarmSettings.defaultSnooze)
            case .ring: .nanoseconds(0)  // before 0.7 an alarm rang once
            case .soundFile, .media: .text("")
            case .volume: .decibels(0)
            case .pauseMedia, .warnSound: .flag(true)
            }
        }

        /// Written in every record, not only when it differs from `meaningWhenAbsent`.
        package var isAlwaysWritten: Bool { meaningWhenAbsent == nil || self == .live }
    }

    /// A setting's value, in its field's unit.
    package enum Value: Sendable, Hashable {
        case flag(Bool)
        case nanoseconds(Int64)
        case text(String)
        case decibels(Double)
    }

    /// The setting `field` (no sound file: `.text("")`). Setting a value of
    /// another unit changes nothing; `problem(with:for:)` says what fits.
    package subscript(field: Field) -> Value {
        get {
            switch field {
            case .alert: .flag(popup)
            case .sound: .flag(sound)
            case .live: .flag(live)
            case .warn: .nanoseconds(warning)
            case .snooze: .nanoseconds(snooze)
            case .ring: .nanoseconds(ring)
            case .soundFile: .text(soundFile ?? "")
            case .volume: .decibels(volume)
            case .fade: .nanoseconds(fade)
            case .pauseMedia: .flag(pausesMedia)
            case .notice: .nanoseconds(notice)
            case .warnSound: .flag(warningSound)
            case .media: .text(media?.name ?? "")
            }
        }
        set {
            switch (field, newValue) {
            case (.alert, .flag(let on)): popup = on
            case (.sound, .flag(let on)): sound = on
            case (.live, .flag(let on)): live = on
            case (.pauseMedia, .flag(let on)): pausesMedia = on
            case (.warnSound, .flag(let on)): warningSound = on
            case (.warn, .nanoseconds(let value)): warning = value
            case (.snooze, .nanoseconds(let value)): snooze = value
            case (.ring, .nanoseconds(let value)): ring = value
            case (.fade, .nanoseconds(let value)): fade = value
            case (.notice, .nanoseconds(let value)): notice = value
            case (.soundFile, .text(let path)): soundFile = path.isEmpty ? nil : path
            case (.volume, .decibels(let decibels)): volume = decibels
            case (.media, .text(let word)): media = MediaAction(name: word)
            default: break
            }
        }
    }

    /// Why `value` cannot be `field`'s (outside its limits, of another
    /// unit); nil if it can. A sound file is checked only for its form
    /// (absolute, or empty for none): whether it plays is `Alert`'s
    /// `problem(withSoundFile:)`, asked where the file is chosen.
    package static func problem(with value: Value, for field: Field) -> String? {
        switch (field.unit, value) {
        case (.flag, .flag): return nil
        case (.nanoseconds, .nanoseconds(let nanoseconds)):
            guard let (range, said) = field.limits, !range.contains(nanoseconds) else { return nil }
            return "\(field.rawValue) must be \(said)"
        case (.text, .text(let path)):
            return path.isEmpty || path.hasPrefix("/") ? nil : "\(field.rawValue) must be an absolute path"
        case (.choice, .text(let word)):
            guard !word.isEmpty, !field.choices.containsSame(word) else { return nil }
            return "\(field.rawValue) must be pause or stop, got '\(word)'"  // (the only choice field)
        case (.decibels, .decibels(let decibels)):
            return Alert.volumeRange.contains(decibels) ? nil : "\(field.rawValue) must be -60 to +10 dB"
        default:
            return "\(field.rawValue) has the wrong type"
        }
    }
}

extension Alert {
    /// The alert of a timer with `settings`: the default sounds (if
    /// `sound`), the ring, warning, snooze, own sound, volume, fade and
    /// media pause it asks for; a sleep timer's (`media`) plays no sound.
    package init(_ settings: AlarmSettings, summary: String?, body: String?) {
        self.init(
            summary: summary, body: body, urgency: settings.media != nil ? .normal : .critical,
            sound: settings.sound ? Alert.defaultSound : nil,
            repeatSound: settings.ring > 0 ? .nanoseconds(settings.ring) : nil, popup: settings.popup,
            live: settings.live, warning: settings.warning > 0 ? .nanoseconds(settings.warning) : nil,
            warningSound: settings.sound && settings.warningSound ? Alert.defaultWarningSound : nil,
            snooze: settings.snooze > 0 ? .nanoseconds(settings.snooze) : nil, soundFile: settings.soundFile,
            volume: settings.volume, fade: settings.fade > 0 ? .nanoseconds(settings.fade) : nil,
            pausesMedia: settings.pausesMedia && settings.media == nil,
            notice: settings.notice > 0 ? .nanoseconds(settings.notice) : nil, media: settings.media)
    }
}
