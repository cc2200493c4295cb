import Testing
import Tocsin
import TocsinNotify
@testable import TocsinService

/// One value for a timer's alarm settings: each field goes through `Add`'s
/// options and the journal and comes back the same, and its limits hold
/// in both.
@Suite struct AlarmSettingsTests {
    /// Every field away from its default.
    static var everyFieldSet: AlarmSettings {
        var settings = AlarmSettings()
        (settings.popup, settings.sound, settings.live) = (false, false, false)
        (settings.warning, settings.snooze, settings.ring) = (30_000_000_000, 600_000_000_000, 0)
        (settings.soundFile, settings.volume, settings.fade, settings.pausesMedia) = ("/etc/hostname", -12.5, 15_000_000_000, false)
        (settings.notice, settings.warningSound, settings.media) = (1_800_000_000_000, false, .stop)
        return settings
    }

    @Test func everyFieldIsSetInTheSample() {
        let differing = AlarmSettings.Field.allCases.filter { Self.everyFieldSet[$0] != AlarmSettings()[$0] }
        #expect(differing == AlarmSettings.Field.allCases)
    }

    @Test func addOptionsRoundTrip() throws {
        for settings in [AlarmSettings(), Self.everyFieldSet] {
            // (A calendar alarm: the notice is an alarm's.)
            let options = Dictionary(uniqueKeysWithValues: settings.serviceOptions + [("calendar", .text("07:00"))])
            let request = try AddRequest(label: "Wake", seconds: 0, options: options) { _ in false }
            #expect(request.settings == settings)
        }
        // alert, sound and live always; the rest only where not the default
        #expect(AlarmSettings().serviceOptions.map(\.0) == ["alert", "sound", "live"])
    }

    @Test func journalMembersRoundTrip() throws {
        for settings in [AlarmSettings(), Self.everyFieldSet] {
            let record = JSON.object(settings.journalMembers)
            #expect(try AlarmSettings(journal: record) == settings)
        }
    }

    @Test func eachLimitHoldsInOptionsAndJournal() {
        for field in AlarmSettings.Field.allCases {
            guard let (range, _) = field.limits else { continue }
            let over = range.upperBound + 1
            #expect(AlarmSettings.problem(with: .nanoseconds(over), for: field) != nil)
            #expect(AlarmSettings.problem(with: .nanoseconds(range.upperBound), for: field) == nil)
            #expect(throws: TocsinError.corrupt) {
                try AlarmSettings(journal: .object([("alert", .bool(true)), ("sound", .bool(true)),
                                                    (AlarmSettings.journalName(field), .integer(over))]))
            }
            #expect(throws: ServiceError.self) {
                try AlarmSettings.value(of: .number(Double(over) / 1e9), for: field)
            }
        }
        #expect(AlarmSettings.problem(with: .decibels(10.5), for: .volume) != nil)
        #expect(AlarmSettings.problem(with: .text("gong.wav"), for: .soundFile) != nil)
        #expect(AlarmSettings.problem(with: .flag(true), for: .ring) != nil)
    }

    /// The alert a timer with these settings shows.
    @Test func theAlertCarriesEverySetting() {
        let alert = Alert(Self.everyFieldSet, summary: "Tea", body: "Time is up")
        #expect(!alert.popup && alert.sound == nil && alert.warningSound == nil && !alert.live)
        #expect(alert.warning == .seconds(30) && alert.snooze == .seconds(600) && alert.repeatSound == nil)
        #expect(alert.soundFile == "/etc/hostname" && alert.volume == -12.5 && alert.fade == .seconds(15) && !alert.pausesMedia)
        #expect(alert.media == .stop && alert.urgency == .normal)  // a sleep timer's notification does not stay
        let plain = Alert(AlarmSettings(), summary: nil, body: nil)
        #expect(plain.sound == Alert.defaultSound && plain.repeatSound == .seconds(60) && plain.snooze == .seconds(300))
        #expect(plain.warningSound == Alert.defaultWarningSound)
        var silentWarning = AlarmSettings()
        silentWarning.warningSound = false  // the warning is text only; the alarm still sounds
        let quiet = Alert(silentWarning, summary: nil, body: nil)
        #expect(quiet.warningSound == nil && quiet.sound == Alert.defaultSound)
    }

    /// `media` takes "pause", "stop" or "" (none), and nothing else, in
    /// `Add`'s options and in the journal.
    @Test func mediaTakesPauseStopOrNothing() throws {
        #expect(AlarmSettings.problem(with: .text("pause"), for: .media) == nil)
        #expect(AlarmSettings.problem(with: .text(""), for: .media) == nil)
        #expect(AlarmSettings.problem(with: .text("mute"), for: .media) == "media must be pause or stop, got 'mute'")
        #expect(try AlarmSettings.value(of: .text("stop"), for: .media) == .text("stop"))
        let refused = #expect(throws: ServiceError.self) { try AlarmSettings.value(of: .text("Pause!"), for: .media) }
        #expect(refused?.kind == .invalidArgument && refused?.message == "media must be \"pause\", \"stop\" or \"\" (none), got 'Pause!'")
        #expect(throws: ServiceError.self) { try AlarmSettings.value(of: .flag(true), for: .media) }
        #expect(throws: TocsinError.corrupt) {
            try AlarmSettings(journal: .object([("alert", .bool(true)), ("sound", .bool(true)), ("media", .string("mute"))]))
        }
        var settings = AlarmSettings()
        settings[.media] = .text("pause")
        #expect(settings.media == .pause && settings.journalMembers.contains { $0.0 == "media" })
        #expect(try AlarmSettings(journal: .object([("alert", .bool(true)), ("sound", .bool(true))])).media == nil)  // older records
        #expect(throws: ServiceError.self) {
            try AddRequest(label: "Laps", seconds: 0, options: ["kind": .text("stopwatch"), "media": .text("pause")]) { _ in false }
        }
    }
}
