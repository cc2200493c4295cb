import Glibc
import Testing
import Tocsin
@testable import TocsinService

/// The client's timers read from `ListColumns`' typed columns are the
/// timers read from `List`'s dictionaries: same fields, same properties.
@Suite struct ServiceTimerTests {
    @Test func fromColumnsAsFromDictionaries() throws {
        let service = TimerService(engine: try TimerEngine(delivery: .manualClock), store: nil, notifier: nil)
        let tea = try service.add(label: "Tea", seconds: 300, options: ["ring": .number(0)], caller: .user)
        _ = try service.add(label: "Break", seconds: 60, options: ["after": .id(tea)], caller: .user)
        _ = try service.add(label: "Run", seconds: 0, options: ["kind": .text("stopwatch")], caller: .user)
        _ = try service.add(label: "Wake", seconds: 0, options: ["calendar": .text("daily UTC")], caller: .user)
        let egg = try service.add(label: "Egg", seconds: 1, options: [:], caller: .user)
        try service.deliverEvents { try service.engine.advance(by: .seconds(2)) }
        try service.pause(tea)
        let fromColumns = ServiceTimer.timers(in: try service.table([], for: .user))
        let fromRows = service.list(for: .user).map { ServiceTimer(Dictionary($0, uniquingKeysWith: { first, _ in first })) }
        #expect(fromColumns.count == 5)
        for (columns, rows) in zip(fromColumns, fromRows) {
            #expect(columns.id == rows.id && columns.label == rows.label && columns.kind == rows.kind)
            #expect(columns.state == rows.state && columns.elapsed == rows.elapsed && columns.remaining == rows.remaining)
            #expect(columns.duration == rows.duration && columns.calendar == rows.calendar && columns.after == rows.after)
            // (how long ago: read from the wall clock at each listing)
            #expect(abs((columns.finishedAgo ?? -9) - (rows.finishedAgo ?? -9)) < 1 && columns.rangAgo == rows.rangAgo)
            #expect(columns.ring == rows.ring)
            let sinceFinish = { (properties: [String: ServiceValue]) in properties.filter { $0.key != "finished_ago" } }
            #expect(sinceFinish(columns.properties) == sinceFinish(rows.properties))
        }
        #expect(fromColumns[1].isWaiting && fromColumns[1].after == tea)
        #expect(fromColumns[0].state == .suspended && fromColumns[0].ring == 0 && fromColumns[4].isOver && fromColumns[4].id == egg)
        #expect(fromColumns[3].calendar == "*-*-* 00:00:00 UTC" && fromColumns[2].remaining == nil)
    }
}
