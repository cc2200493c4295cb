import Testing
import Tocsin
import TocsinService

/// `Add`'s options decoded and checked, without a bus or an engine.
@Suite struct AddRequestTests {
    func request(_ label: String = "Tea", seconds: Double = 60, _ options: [String: ServiceValue] = [:],
                 timers: Set<UInt64> = []) throws(ServiceError) -> AddRequest {
        try AddRequest(label: label, seconds: seconds, options: options) { timers.contains($0) }
    }

    func failure(_ body: () throws(ServiceError) -> AddRequest) -> ServiceError? {
        do throws(ServiceError) {
            _ = try body()
            return nil
        } catch {
            return error
        }
    }

    @Test func defaultsAreARunningCountdownWithAlertSoundAndLiveNotification() throws {
        let tea = try request()
        #expect(tea.label == "Tea" && tea.kind == .countdown && tea.nanoseconds == 60_000_000_000)
        let alarm = tea.settings
        #expect(tea.start && alarm.popup && alarm.sound && alarm.live && tea.clock == .boot && tea.tick == nil && alarm.warning == 0)
        #expect(alarm.snooze == 300_000_000_000 && alarm.ring == 60_000_000_000 && alarm.soundFile == nil && alarm.volume == 0)
    }

    @Test func everyOptionIsDecoded() throws {
        let rest = try request("Break", seconds: 300, [
            "start": .flag(false), "alert": .flag(false), "sound": .flag(false), "live": .flag(false),
            "warn": .number(30), "tick": .number(0.5), "clock": .text("awake"), "after": .id(7),
        ], timers: [7])
        #expect(!rest.start && !rest.settings.popup && !rest.settings.sound && !rest.settings.live)
        #expect(rest.settings.warning == 30_000_000_000 && rest.tick == 500_000_000 && rest.clock == .awake && rest.after == 7)
        #expect(try request("Run", seconds: 0, ["kind": .text("stopwatch")]).nanoseconds == 0)
        #expect(try request("Wake", seconds: 1_800_000_000, ["kind": .text("alarm")]).nanoseconds == 1_800_000_000_000_000_000)
        let weekdays = try request("Wake", seconds: 0, ["calendar": .text("mon..fri 7:00 Europe/Berlin")])
        #expect(weekdays.kind == .calendar && weekdays.calendar?.normalized == "Mon..Fri *-*-* 07:00:00 Europe/Berlin")
        #expect(try request("Wake", seconds: -5, ["kind": .text("calendar"), "calendar": .text("daily")]).kind == .calendar)
        #expect(weekdays.wake && !rest.wake)  // alarms wake the machine by default, countdowns do not
        #expect(try request("Tea", seconds: 60, ["wake": .flag(true)]).wake)
        #expect(try request("Tea", seconds: 60, ["snooze": .number(600)]).settings.snooze == 600_000_000_000)
        #expect(try !request("Bus", seconds: 1_800_000_000, ["kind": .text("alarm"), "wake": .flag(false)]).wake)
    }

    @Test func eachRefusalSaysWhatIsWrong() {
        let cases: [(String, Double, [String: ServiceValue], ServiceError)] = [
            ("Tea", 60, ["colour": .text("red")], ServiceError(.invalidArgument,
                "unknown option 'colour' (known: after, alert, calendar, clock, exec, fade, kind, live, media, notice, pause_media, ring, skip_until, snooze, sound, sound_file, start, tick, volume, wake, warn, warn_sound)")),
            ("Tea", 60, ["wake": .text("yes")], ServiceError(.invalidArgument, "wake must be a boolean (b)")),
            ("Tea", 60, ["notice": .number(60)], ServiceError(.invalidArgument,
                "notice is for alarms (kind alarm or calendar); a countdown's is warn")),
            ("Bus", 1_800_000_000, ["kind": .text("alarm"), "skip_until": .number(1_900_000_000)], ServiceError(.invalidArgument,
                "skip_until is for calendar alarms (the option calendar)")),
            ("Lap", 0, ["kind": .text("stopwatch"), "wake": .flag(true)], ServiceError(.invalidArgument,
                "a stopwatch cannot wake the machine: nothing falls due")),
            ("Tea", 60, ["kind": .text("egg")], ServiceError(.invalidArgument, "kind must be countdown, stopwatch, alarm or calendar, not 'egg'")),
            ("Sleep", 60, ["media": .text("mute")], ServiceError(.invalidArgument,
                "media must be \"pause\", \"stop\" or \"\" (none), got 'mute'")),
            ("Lap", 0, ["kind": .text("stopwatch"), "media": .text("pause")], ServiceError(.invalidArgument,
                "media (pause) is for timers that reach zero; a stopwatch never does")),
            ("Wake", 0, ["calendar": .text("Mon..Fri 25:00")], ServiceError(.invalidArgument,
                "bad calendar spec 'Mon..Fri 25:00': column 10: hour 25 is out of range (0..23)")),
            ("Wake", 0, ["calendar": .text("07:00 Mars/Olympus")], ServiceError(.invalidArgument,
                "bad calendar spec '07:00 Mars/Olympus': column 7: unknown time zone 'Mars/Olympus'")),
            ("Wake", 0, ["kind": .text("calendar")], ServiceError(.invalidArgument,
                "a calendar alarm needs the option calendar (its spec, e.g. 'Mon..Fri 07:00')")),
            ("Wake", 0, ["kind": .text("alarm"), "calendar": .text("daily")], ServiceError(.invalidArgument,
                "the option calendar makes a calendar alarm: drop kind 'alarm' or the option")),
            ("Wake", 0, ["calendar": .number(7)], ServiceError(.invalidArgument, "calendar must be a string (s)")),
            ("Tea", 60, ["alert": .text("yes")], ServiceError(.invalidArgument, "alert must be a boolean (b)")),
            ("Tea", 60, ["warn": .number(86401)], ServiceError(.invalidArgument, "warn must be at most 86400 seconds, got 86401.0")),
            ("Tea", 60, ["snooze": .number(0.5)], ServiceError(.invalidArgument, "snooze must be 1 to 86400 seconds (24 h), got 0.5")),
            ("Tea", 60, ["snooze": .number(86401)], ServiceError(.invalidArgument,
                "snooze must be 1 to 86400 seconds (24 h), got 86401.0")),
            ("Tea", 60, ["snooze": .number(-60)], ServiceError(.invalidArgument, "snooze must be a number of seconds >= 0 (d)")),
            ("Tea", 60, ["ring": .number(3601)], ServiceError(.invalidArgument,
                "ring must be at most 3600 seconds (0: play the sound once), got 3601.0")),
            ("Tea", 60, ["volume": .number(11)], ServiceError(.invalidArgument, "volume must be -60 to +10 dB (d)")),
            ("Tea", 60, ["volume": .number(.nan)], ServiceError(.invalidArgument, "volume must be -60 to +10 dB (d)")),
            ("Tea", 60, ["fade": .number(301)], ServiceError(.invalidArgument, "fade must be at most 300 seconds, got 301.0")),
            ("Tea", 60, ["sound_file": .text("gong.wav")], ServiceError(.invalidArgument,
                "sound_file must be an absolute path (the service's folder is not yours), got 'gong.wav'")),
            ("Tea", 60, ["sound_file": .text("/nonexistent/gong.wav")], ServiceError(.invalidArgument,
                "sound file '/nonexistent/gong.wav': No such file or directory")),
            ("Tea", 60, ["sound_file": .text("/tmp")], ServiceError(.invalidArgument, "sound file '/tmp': not a regular file")),
            ("Tea", 60, ["sound_file": .text("")], ServiceError(.invalidArgument,
                "sound_file must be an absolute path (the service's folder is not yours), got ''")),
            ("Tea", 60, ["tick": .number(-1)], ServiceError(.invalidArgument, "tick must be a number of seconds >= 0 (d)")),
            // The freeze of issue 57: a 1 ns tick (5e-324 s rounds up to it).
            ("x", 59.9, ["tick": .number(.leastNonzeroMagnitude)], ServiceError(.invalidArgument,
                "tick must be 0 (none) or 0.1 to 86400 seconds, got 5e-324")),
            ("Tea", 30, ["tick": .number(1e-9)], ServiceError(.invalidArgument,
                "tick must be 0 (none) or 0.1 to 86400 seconds, got 1e-09")),
            ("Tea", 30, ["tick": .number(0.099)], ServiceError(.invalidArgument,
                "tick must be 0 (none) or 0.1 to 86400 seconds, got 0.099")),
            ("Tea", 30, ["tick": .number(86400.5)], ServiceError(.invalidArgument,
                "tick must be 0 (none) or 0.1 to 86400 seconds, got 86400.5")),
            ("Tea", 60, ["clock": .text("wall")], ServiceError(.invalidArgument, "clock must be boot or awake, not 'wall'")),
            ("Tea", 60, ["after": .id(9)], ServiceError(.noSuchTimer, "no timer 9 to start after")),
            ("Tea", 60, ["after": .text("9")], ServiceError(.invalidArgument, "after must be a timer id (t)")),
            ("Tea", -1, [:], ServiceError(.invalidArgument, "seconds must be a finite number above 0, at most 100 years; got -1.0")),
            ("Tea", .nan, ["kind": .text("alarm")], ServiceError(.invalidArgument,
                "an alarm's time must be a Unix time (seconds since 1970), got nan")),
            ("Wake", -1, ["kind": .text("alarm")], ServiceError(.invalidArgument,
                "an alarm's time must be a Unix time (seconds since 1970), got -1.0")),
            ("Wake", 0, ["calendar": .text("Mon..Fri 07:00" + String(repeating: " ", count: 1024))],
             ServiceError(.invalidArgument, "calendar must be at most 1024 bytes")),
            ("Tea", 60, ["sound_file": .text("/" + String(repeating: "a", count: 4096))],
             ServiceError(.invalidArgument, "sound_file must be at most 4096 bytes")),
            ("Tea", 60, ["clock": .text(String(repeating: "a", count: 4097))],
             ServiceError(.invalidArgument, "clock must be at most 4096 bytes")),
            (String(repeating: "x", count: TimerEngine.maxLabelBytes + 1), 60, [:],
             ServiceError(.invalidArgument, "the label is longer than \(TimerEngine.maxLabelBytes) bytes")),
        ]
        for (label, seconds, options, expected) in cases {
            #expect(failure { () throws(ServiceError) in try request(label, seconds: seconds, options) } == expected)
        }
    }
}
