import Foundation
import Testing
import TocsinNotify
@testable import TocsinService

/// The drift test: every alarm setting has its home in each coding, as
/// Tests/alarm-fields.tsv lists them (the command's options are checked
/// from the same table by Tests/cli/test_alarm_fields.py).
@Suite struct AlarmFieldHomesTests {
    struct Row {
        let field, listColumn, journalMember, cMember, pythonKeyword: String
    }

    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func rows() throws -> [Row] {
        let text = try String(contentsOf: root.appendingPathComponent("Tests/alarm-fields.tsv"), encoding: .utf8)
        return text.split(separator: "\n").filter { !$0.hasPrefix("#") }.map { line in
            let cells = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            return Row(field: cells[0], listColumn: cells[1], journalMember: cells[2], cMember: cells[3], pythonKeyword: cells[4])
        }
    }

    @Test func everyFieldHasARowAndEveryRowAField() throws {
        #expect(try Self.rows().map(\.field) == AlarmSettings.Field.allCases.map(\.rawValue))
    }

    @Test func eachFieldIsAListColumnAndAJournalMember() throws {
        for row in try Self.rows() {
            let field = try #require(AlarmSettings.Field(rawValue: row.field))
            #expect(TimerTable.Column(rawValue: row.listColumn)?.setting == field, "\(row.field): List column")
            #expect(AlarmSettings.journalName(field) == row.journalMember, "\(row.field): journal member")
            var settings = AlarmSettings()
            settings[field] = Self.unlikeAbsence(field)
            #expect(settings.journalMembers.contains { $0.0 == row.journalMember }, "\(row.field): written to the journal")
        }
    }

    /// A value the journal must write: not what a record without it means.
    static func unlikeAbsence(_ field: AlarmSettings.Field) -> AlarmSettings.Value {
        switch field.unit {
        case .flag: field.meaningWhenAbsent == .flag(true) ? .flag(false) : .flag(true)
        case .nanoseconds: .nanoseconds(7_000_000_000)
        case .text: .text("/tmp/bell.oga")
        case .decibels: .decibels(-3)
        case .choice: .text(field.choices[0])
        }
    }

    @Test func eachFieldIsATocsinAlertMemberOrFlag() throws {
        let header = try String(contentsOf: Self.root.appendingPathComponent("include/tocsin_notify.h"), encoding: .utf8)
        let structure = try #require(header.range(of: "typedef struct tocsin_alert {").flatMap { start in
            header.range(of: "} tocsin_alert;", range: start.upperBound..<header.endIndex).map { header[start.upperBound..<$0.lowerBound] }
        })
        for row in try Self.rows() {
            if row.cMember.hasPrefix("flags:") {
                let flag = String(row.cMember.dropFirst(6))
                #expect(header.contains("    \(flag) = "), "\(row.field): tocsin_alert flag \(flag)")
            } else {
                #expect(structure.contains(" \(row.cMember);") || structure.contains("*\(row.cMember);"), "\(row.field): tocsin_alert member \(row.cMember)")
            }
        }
    }

    @Test func eachFieldIsAKeywordOfPythonsAttach() throws {
        let source = try String(contentsOf: Self.root.appendingPathComponent("bindings/python/tocsin/notify.py"), encoding: .utf8)
        let signature = try #require(source.range(of: "    def attach(").flatMap { start in
            source.range(of: ") -> None:", range: start.upperBound..<source.endIndex).map { source[start.upperBound..<$0.lowerBound] }
        })
        for row in try Self.rows() {
            #expect(signature.contains("        \(row.pythonKeyword): "), "\(row.field): Python keyword \(row.pythonKeyword)")
        }
    }
}
