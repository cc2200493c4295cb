import Tocsin
import TocsinBase

/// A timer's D-Bus properties, as `List` and `Changed` carry them.
extension TimerService {
    /// The properties `List` and `Changed` carry.
    func properties(of entry: Entry) -> [(String, ServiceValue)]? {
        let timer = entry.timer
        guard let state = try? engine.state(of: timer), let elapsed = try? engine.elapsed(of: timer) else { return nil }
        var properties: [(String, ServiceValue)] = [
            ("id", .id(entry.id)), ("label", .text((try? engine.label(of: timer)) ?? "")),
            ("kind", .text(entry.kind.rawValue)), ("state", .text(state.description)),
            ("elapsed", .number(Nanos.seconds(elapsed.nanoseconds))),
            ("clock", .text((try? engine.clock(of: timer)) == .awake ? "awake" : "boot")),
            ("laps", .numbers(((try? engine.laps(of: timer)) ?? []).map { Nanos.seconds($0.nanoseconds) })),
            ("live", .flag(entry.live)), ("warn", .number(Nanos.seconds(entry.warn))),
            ("wake", .flag((try? engine.wakes(timer)) ?? false)), ("finishes", .id(entry.finishes)),
            ("snooze", .number(Nanos.seconds(entry.snooze))), ("ring", .number(Nanos.seconds(entry.ring))),
            ("pause_media", .flag(entry.pauseMedia)),
        ]
        if let remaining = try? engine.remaining(of: timer), let duration = try? engine.duration(of: timer) {
            properties += [("remaining", .number(Nanos.seconds(remaining.nanoseconds))),
                           ("duration", .number(Nanos.seconds(duration.nanoseconds)))]
        }
        if let time = try? engine.alarmTime(of: timer) {
            properties.append(("alarm_time", .number(Nanos.seconds(time.nanoseconds))))
            if let spec = try? engine.calendarSpec(of: timer) {
                properties += [("calendar", .text(spec.normalized)), ("next", .number(Nanos.seconds(time.nanoseconds)))]
                if let rang = entry.finishedAt { properties.append(("rang_ago", .number(max(0, Nanos.seconds(Clocks.realtime()) - rang)))) }
            }
        }
        if let file = entry.soundFile { properties.append(("sound_file", .text(file))) }
        if entry.volume != 0 { properties.append(("volume", .number(entry.volume))) }
        if entry.fade > 0 { properties.append(("fade", .number(Nanos.seconds(entry.fade)))) }
        if let until = entry.snoozedUntil { properties.append(("snoozed_until", .number(until))) }
        if let after = entry.after { properties.append(("after", .id(after))) }
        if state == .finished, let finishedAt = entry.finishedAt {
            properties.append(("finished_ago", .number(max(0, Nanos.seconds(Clocks.realtime()) - finishedAt))))
        }
        return properties
    }
}
