import Tocsin
import TocsinBase

/// A timer's D-Bus properties, as `List` and `Changed` carry them.
extension TimerService {
    /// The properties `List` and `Changed` carry.
    func properties(of entry: Entry) -> [(String, ServiceValue)]? {
        guard let reading = (try? engine.readings(of: [entry.timer]))?.first ?? nil else { return nil }
        return properties(of: entry, reading)
    }

    /// The properties of a timer read already (`List` reads them all at once).
    func properties(of entry: Entry, _ reading: TimerReading) -> [(String, ServiceValue)] {
        var properties: [(String, ServiceValue)] = [
            ("id", .id(entry.id)), ("label", .text(reading.label)),
            ("kind", .text(entry.kind.rawValue)), ("state", .text(reading.state.description)),
            ("elapsed", .number(Nanos.seconds(reading.elapsed))),
            ("clock", .text(reading.clock == .awake ? "awake" : "boot")),
            ("laps", .numbers(reading.laps.map { Nanos.seconds($0) })),
            ("live", .flag(entry.live)), ("warn", .number(Nanos.seconds(entry.warn))),
            ("wake", .flag(reading.wakes)), ("finishes", .id(entry.finishes)),
            ("snooze", .number(Nanos.seconds(entry.snooze))), ("ring", .number(Nanos.seconds(entry.ring))),
            ("pause_media", .flag(entry.pauseMedia)),
        ]
        if let remaining = reading.remaining, let duration = reading.duration {
            properties += [("remaining", .number(Nanos.seconds(remaining))), ("duration", .number(Nanos.seconds(duration)))]
        }
        if let time = reading.alarmTime {
            properties.append(("alarm_time", .number(Nanos.seconds(time))))
            if let spec = reading.calendar {
                properties += [("calendar", .text(spec.normalized)), ("next", .number(Nanos.seconds(time)))]
                if let rang = entry.finishedAt { properties.append(("rang_ago", .number(max(0, Nanos.seconds(Clocks.realtime()) - rang)))) }
            }
        }
        if let file = entry.soundFile { properties.append(("sound_file", .text(file))) }
        if entry.volume != 0 { properties.append(("volume", .number(entry.volume))) }
        if entry.fade > 0 { properties.append(("fade", .number(Nanos.seconds(entry.fade)))) }
        if let until = entry.snoozedUntil { properties.append(("snoozed_until", .number(until))) }
        if let after = entry.after { properties.append(("after", .id(after))) }
        if reading.state == .finished, let finishedAt = entry.finishedAt {
            properties.append(("finished_ago", .number(max(0, Nanos.seconds(Clocks.realtime()) - finishedAt))))
        }
        return properties
    }
}
