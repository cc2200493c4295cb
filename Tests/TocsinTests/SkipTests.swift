import Testing
@testable import Tocsin

/// Skipped rings through the Swift API, on a manual clock (the C tests,
/// Tests/c/test_calendar.c, cover DST, restore and the errors).
@Suite struct SkipTests {
    /// 2027-03-26, a Friday, 06:00 UTC.
    static let friday0600: Int64 = 1_806_040_800

    @Test func skippedRingsDoNotRingAndTheNextOneDoes() throws {
        let rig = try ManualRig()
        try rig.engine.setWallClock(.seconds(Self.friday0600))
        let alarm = try rig.engine.calendar(try CalendarSpec(parsing: "Mon..Fri 07:00 UTC"))
        try rig.engine.setHandler(for: alarm, rig.recorder.handler)
        try rig.engine.start(alarm)
        #expect(try rig.engine.skippedUntil(alarm) == nil)
        try rig.engine.skipRings(alarm, count: 2)  // Friday's and Monday's
        let tuesday = Duration.seconds(Self.friday0600 + 3_600 + 4 * 86_400)
        #expect(try rig.engine.alarmTime(of: alarm) == tuesday)
        #expect(try rig.engine.skippedUntil(alarm) == tuesday)
        try rig.advance(.seconds(4 * 86_400 + 3_600 - 1))
        #expect(rig.recorder.all.filter { $0.kind == .finish }.isEmpty)
        try rig.advance(.seconds(1))
        let rings = rig.recorder.all.filter { $0.kind == .finish }
        #expect(rings.count == 1 && rings[0].missed == 0)
        #expect(try rig.engine.skippedUntil(alarm) == nil)
        #expect(throws: TocsinError.invalidArgument) { try rig.engine.skipRings(alarm, count: 0) }
        #expect(throws: TocsinError.invalidArgument) { try rig.engine.skipRings(try rig.engine.countdown(.seconds(5))) }
        try rig.engine.skipRings(alarm, until: tuesday + .seconds(7 * 86_400))
        #expect(try rig.engine.alarmTime(of: alarm) == tuesday + .seconds(7 * 86_400))
        try rig.engine.clearSkip(alarm)
        #expect(try rig.engine.alarmTime(of: alarm) == tuesday + .seconds(86_400))  // Wednesday's
    }
}
