package import TocsinBase
import Glibc

/// Everything of a `Notifier`: its state, its two threads, and what they
/// call back. The closures it hands those threads, GLib and the engines'
/// observers hold it strongly (Embedded Swift, in which libtocsin-notify.so
/// is built, has no weak references): `close()` breaks those cycles (it
/// stops the observers, cancels the live timeouts, drops the sound thread's
/// and the presenter's callbacks and stops both threads), and the
/// `Notifier` facade closes it when it goes.
///
/// `@unchecked Sendable`: mutable state is guarded by `lock`; the presenter
/// and `following` are touched only on the GLib thread.
package final class NotifierCore: @unchecked Sendable {
    typealias Options = Notifier.Options

    struct Attachment {
        var alert: Alert
        var host: any AlertHost
    }

    let options: Options
    let glib: GLibLane
    private(set) var sound: SoundPlayer!
    /// GLib thread only.
    private(set) var presenter: AlertPresenter!
    /// GLib thread only.
    let media = MediaPauser()
    /// Sleep timers' fades and their Pause or Stop at zero; GLib thread only.
    let fader = MediaFader()
    /// The timers whose time is followed (live or warned), and the beat
    /// and summary of the live ones; GLib thread only.
    var following: [AlertKey: Following] = [:]
    var board = LiveBoard()
    /// How many live notifications show at once (`Options.liveLimit`,
    /// `setLiveLimit`); GLib thread only.
    var liveLimit: Int
    package let lock = TocsinLock()
    // Guarded by `lock`:
    var attachments: [AlertKey: Attachment] = [:]
    package var hosts: [ObjectIdentifier: any AlertHost] = [:]
    var reportHandler: (@Sendable (NotifierReport) -> Void)?
    /// `Notifier.setSummaryHandler`'s (under `lock`).
    var summaryHandler: (@Sendable (UInt32?) -> Void)?
    /// `Notifier.setFinishAlertsHandler`'s (under `lock`).
    var finishAlertsHandler: (@Sendable (Int) -> Void)?
    var loggedReasons: [String] = []
    var pending = 0
    var closed = false
    /// The timers whose alarm is up or snoozed (one table: each table
    /// type costs the Embedded library kilobytes).
    var alarms: [AlertKey: AlarmState] = [:]
    private var nextStandalone: UInt64 = 1

    init(options: Options) throws(TocsinError) {
        self.options = options
        liveLimit = max(0, options.liveLimit)
        do {
            glib = try GLibLane()
        } catch {
            throw .io
        }
        let report: SoundPlayer.Reporter = { [self] kind, key, detail, failure in
            self.report(kind, key, detail, failure)
        }
        do {
            sound = try SoundPlayer(report: report, done: { [self] _ in finishOne() },
                                    ranOut: { [self] key in ringRanOut(key) },
                                    media: { [self] key, started in glib.run { [self] in media.ring(key, started: started) } })
        } catch {
            glib.stop()
            throw .io
        }
        let presenter = AlertPresenter(
            onAction: { [self] key, action in perform(action, on: key) },
            onClosed: { [self] key, byUser in dismissed(key, byUser: byUser) },
            onFinishAlerts: { [self] count in
                let handler = lock.withLock { finishAlertsHandler }
                handler?(count)
            })
        self.presenter = presenter
    }

    func setReportHandler(_ handler: (@Sendable (NotifierReport) -> Void)?) {
        lock.withLock { reportHandler = handler }
    }

    func setSummaryHandler(_ handler: (@Sendable (UInt32?) -> Void)?) {
        lock.withLock { summaryHandler = handler }
    }

    func setFinishAlertsHandler(_ handler: (@Sendable (Int) -> Void)?) {
        lock.withLock { finishAlertsHandler = handler }
    }

    /// Runs `work` on the notifier's GLib thread, after the work queued
    /// before it (how the timer service gives that thread its locale).
    package func runOnThread(_ work: @escaping @Sendable () -> Void) {
        glib.run(work)
    }

    // MARK: - Showing

    func show(_ alert: Alert) {
        guard !isClosed else { return }
        let key = lock.withLock {
            defer { nextStandalone += 1 }
            return AlertKey(host: nil, timer: nextStandalone)
        }
        present(key, alert: alert, label: "Tocsin", buttons: [.stop])
    }
}
