import Glibc
import Testing
import TocsinCLI
import TocsinNotify

/// The alarms file without a service: what a line says, written and read
/// back the same, and each mistake named by line and column.
@Suite struct AlarmFileTests {
    /// 2026-11-28 12:00:00 UTC.
    let now: Int64 = 1_795_867_200

    @Test func everyKindOfLineReadsBackAsItWasWritten() throws {
        let text = """
            # a comment
            every "Mon..Fri *-*-* 07:00:00" "Wake" live=no snooze=10m volume=-12.5 notice=30m skip_until="2026-12-02 07:00:00 +00:00"

            at "2026-12-05 08:21:14 +01:00" "Dentist \\"Dr. Ö\\"\\tand\\\\" ring=2m fade=1.5s wake=no
            countdown 1h30m15s "Tea" sound_file="/usr/share/sounds/a b.oga" state=paused   # trailing
            every "*-*-01 09:00:00 Europe/Berlin" "Rent" alert=no state=off
            """
        let file = try AlarmFile.parse(text, now: now)
        #expect(file.entries.map(\.line) == [2, 4, 5, 6])
        let wake = file.entries[0]
        #expect(wake.kind == .every && wake.spec == "Mon..Fri *-*-* 07:00:00" && wake.label == "Wake")
        #expect(wake.settings.notice == 1_800_000_000_000 && wake.settings.volume == -12.5 && !wake.settings.live)
        #expect(wake.skipUntil == 1_796_194_800)
        let dentist = file.entries[1]
        #expect(dentist.time == 1_796_455_274 && dentist.label == "Dentist \"Dr. Ö\"\tand\\" && !dentist.wake)
        #expect(dentist.settings.fade == 1_500_000_000)
        #expect(file.entries[2].time == 5415 * 1_000_000_000 && file.entries[2].state == .paused)
        #expect(file.entries[2].settings.soundFile == "/usr/share/sounds/a b.oga")
        #expect(file.entries[3].state == .off && !file.entries[3].settings.popup)
        // Written and read again: the same alarms.
        let again = try AlarmFile.parse(file.text(header: "exported"), now: now)
        #expect(again == file)
        #expect(file.text(header: "a\nb").hasPrefix("# a\n# b\nevery "))
    }

    /// docs/alarms-file.md's example reads as it says (on the day it was written).
    @Test func theDocumentedExampleReads() throws {
        let docs = String(#filePath).split(separator: "/").dropLast(3).joined(separator: "/")
        let text = try #require(readFile("/" + docs + "/docs/alarms-file.md"))
        let example = try #require(text.split(separator: "```").dropFirst().first.map(String.init))
        let file = try AlarmFile.parse(example, now: now)
        #expect(file.entries.map(\.label) == ["Wake", "Rent", "Dentist", "Market", "Tea"])
        #expect(file.entries[3].state == .off && file.entries[4].state == .paused && file.entries[2].settings.volume == -6)
        #expect(file.entries[0].skipUntil == 1_798_412_400)  // 2026-12-28 00:00 in Berlin
    }

    /// A file from Windows (CRLF endings, a byte-order mark) reads exactly
    /// as its LF twin (issue 58: it imported as 0 alarms, or with "\r" in
    /// a label, or as "ring takes a length, not '2m\nevery'").
    @Test func windowsLineEndingsAndAByteOrderMarkReadAsTheirLFTwin() throws {
        let lines = ["# from Windows", "every \"Mon..Fri 06:45\" \"Gym\" ring=2m", "every \"Mon 07:00\" \"A\"",
                     "at \"2026-12-24 18:00:00 +01:00\" \"Xmas\"", ""]
        let unix = try AlarmFile.parse(lines.joined(separator: "\n"), now: now)
        #expect(unix.entries.map(\.label) == ["Gym", "A", "Xmas"])
        let windows = try AlarmFile.parse("\u{FEFF}" + lines.joined(separator: "\r\n"), now: now)
        #expect(windows == unix)
        do {
            _ = try AlarmFile.parse("\u{FEFF}every \"07:00\" \"A\"\r\nevery \"Mon..Fri\" \"B\" ring=61m\r\n", now: now)
            Issue.record("a ring of 61 min was taken")
        } catch {
            #expect(error.line == 2)  // lines counted as in a text editor
        }
    }

    /// A label with a carriage return stays on its line, escaped, and reads
    /// back the same (issue 58: it was written raw, breaking the line).
    @Test func aCarriageReturnInALabelIsEscaped() throws {
        let text = "every \"07:00\" \"A\\rB\\r\\nC\"\n"
        let file = try AlarmFile.parse(text, now: now)
        #expect(file.entries[0].label == "A\rB\r\nC")
        let written = file.text(header: "h")
        #expect(!written.contains("\r") && written.contains(#""A\rB\r\nC""#))
        #expect(try AlarmFile.parse(written, now: now) == file)
    }

    /// skip_until takes a bare date, as `tocsin skip --until` does: its
    /// midnight in the alarm's zone (issue 58: it was refused).
    @Test func skipUntilTakesABareDateInTheAlarmsZone() throws {
        let file = try AlarmFile.parse("every \"*-*-* 07:00 UTC\" \"Wake\" skip_until=\"2026-12-28\"\n", now: now)
        #expect(file.entries[0].skipUntil == 1_798_416_000)  // 2026-12-28 00:00 UTC
        let tokyo = try AlarmFile.parse("every \"*-*-* 07:00 Asia/Tokyo\" \"Wake\" skip_until=2026-12-28\n", now: now)
        #expect(tokyo.entries[0].skipUntil == Int64(1_798_416_000 - 9 * 3600))
        #expect(try AlarmFile.parse("every \"07:00 UTC\" \"Wake\" skip_until=2026-11-01\n", now: now).entries[0].skipUntil == nil)
    }

    /// A command the service runs at the ring (`exec`) is kept, quoted, and
    /// read back; an empty one is a mistake at its value.
    @Test func aCommandIsWrittenAndReadBack() throws {
        let text = "every \"Mon..Fri *-*-* 09:25:00\" \"Stand-up\" exec=\"notify-send \\\"Go\\\"; echo \\\\ done\"\n"
        let file = try AlarmFile.parse(text, now: now)
        #expect(file.entries[0].command == #"notify-send "Go"; echo \ done"#)
        #expect(try AlarmFile.parse(file.text(header: "h"), now: now) == file)
        #expect(file.text(header: "h").hasSuffix(#"exec="notify-send \"Go\"; echo \\ done""# + "\n"))
        #expect { try AlarmFile.parse("every \"07:00\" \"W\" exec=\" \"\n", now: now) } throws: {
            ($0 as? AlarmFile.Mistake)?.description == "1:24: exec takes a shell command, not nothing"
        }
    }

    @Test func aSkipThatIsOverIsNone() throws {
        let file = try AlarmFile.parse("every \"07:00\" \"Wake\" skip_until=\"2026-11-01 00:00:00 Z\"\n", now: now)
        #expect(file.entries[0].skipUntil == nil)
    }

    @Test(arguments: [
        ("every \"07:00\" Wake\nevery \"07:00\" \"Wake\" ring=61m", 2, 27, "ring must be at most 3600 seconds"),
        ("at \"2026-12-05 25:00:00 +01:00\" \"X\"", 1, 4, "is not a time"),
        ("at \"2026-12-05 08:00:00 +0100\" \"X\" state=sometimes", 1, 42, "state is running, paused or off"),
        ("countdown 0 \"Tea\"", 1, 11, "is not a length"),
        ("countdown 5m \"Tea\" wake=yes", 1, 20, "a countdown does not wake the machine"),
        ("every \"07:00\" \"Wake\" skip_until=\"soon\"", 1, 33, "is not a time"),
        ("every \"07:00\" \"Wake\" ring=1m ring=2m", 1, 30, "ring is set twice"),
        ("every \"07:00\" \"Wake\" loud", 1, 22, "'loud' is not a setting"),
        ("every \"07:00\" \"Wake\\q\"", 1, 20, "unknown escape \\q"),
        ("every", 1, 7, "every needs its time and a label"),
    ] as [(String, Int, Int, String)])
    func mistakesAreNamedByLineAndColumn(text: String, line: Int, column: Int, words: String) {
        #expect {
            try AlarmFile.parse(text, now: now)
        } throws: { error in
            guard let mistake = error as? AlarmFile.Mistake else { return false }
            return mistake.line == line && mistake.column == column && mistake.message.contains(words)
        }
    }
}

private func readFile(_ path: String) -> String? {
    guard let file = fopen(path, "r") else { return nil }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let count = fread(&buffer, 1, buffer.count, file)
        if count == 0 { break }
        bytes += buffer[..<count]
    }
    return String(decoding: bytes, as: UTF8.self)
}
