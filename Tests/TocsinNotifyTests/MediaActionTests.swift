import Testing
@testable import TocsinDesktop
import TocsinBase

/// A sleep timer's fade, without a bus: the share of their volume the
/// players play at, and when the next step comes.
struct MediaActionTests {
    let second = Nanos.perSecond

    @Test func theVolumeFallsLinearlyOverTheLastFadeBeforeZero() throws {
        let fade = 60 * second
        #expect(MediaAction.fadeLevel(remaining: 61 * second, fade: fade) == nil)  // not yet
        #expect(MediaAction.fadeLevel(remaining: fade, fade: fade) == 1)
        #expect(MediaAction.fadeLevel(remaining: 45 * second, fade: fade) == 0.75)
        #expect(MediaAction.fadeLevel(remaining: 15 * second, fade: fade) == 0.25)
        #expect(MediaAction.fadeLevel(remaining: 0, fade: fade) == 0)
        #expect(MediaAction.fadeLevel(remaining: -second, fade: fade) == 0)  // late: never below nothing
        #expect(MediaAction.fadeLevel(remaining: second, fade: 0) == nil)  // no fade
    }

    @Test func stepsComeEveryHalfSecondAndTheLastOneAtZero() {
        #expect(MediaAction.nextFadeStep(remaining: 30 * second) == second / 2)
        #expect(MediaAction.nextFadeStep(remaining: second / 5) == second / 5)
        #expect(MediaAction.nextFadeStep(remaining: 0) == nil)
        // A minute's fade: 120 steps, each at most 1/120 of the volume.
        var remaining = 60 * second, steps = 0, last = 1.0
        while let wait = MediaAction.nextFadeStep(remaining: remaining) {
            remaining -= wait
            steps += 1
            let level = try! #require(MediaAction.fadeLevel(remaining: remaining, fade: 60 * second))
            #expect(last - level <= 1.0 / 120 + 1e-9)
            last = level
        }
        #expect(steps == 120 && last == 0)
    }

    @Test func theNotificationSaysWhatWasDone() {
        #expect(MediaAction.pause.outcome(2) == "Paused 2 players")
        #expect(MediaAction.pause.outcome(1) == "Paused 1 player")
        #expect(MediaAction.stop.outcome(1) == "Stopped 1 player")
        #expect(MediaAction.stop.outcome(0) == "No player was playing")
    }

    @Test func aSleepTimerPlaysNoSoundAndFollowsItsTimeOnlyWithAFade() {
        var settings = AlarmSettings()
        settings.media = .pause
        settings.live = false
        let alert = Alert(settings, summary: "Sleep", body: nil)
        #expect(alert.soundChain.isEmpty && !alert.pausesMedia && !alert.followsTime && alert.mediaFade == nil)
        settings.fade = 30 * second
        let fading = Alert(settings, summary: "Sleep", body: nil)
        #expect(fading.followsTime && fading.mediaFade == 30 * second)
    }
}
