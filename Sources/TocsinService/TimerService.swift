import CGio
package import Tocsin
import TocsinBase
package import TocsinNotify

/// What the service tells its clients; the bus turns these into signals.
package struct ServiceSignals {
    package var changed: (UInt64, [(String, ServiceValue)]) -> Void = { _, _ in }
    package var finished: (UInt64, String, Double) -> Void = { _, _, _ in }
    /// Id, label, lateness, the finish's number, and whether it may have
    /// been announced before (a restart since it was recorded).
    package var finishAnnounced: (UInt64, String, Double, UInt64, Bool) -> Void = { _, _, _, _, _ in }
    /// Runs its argument once the signals sent so far have been routed by
    /// the bus (never waiting: later, on the service's loop; at once
    /// without a bus).
    package var afterSent: (@escaping () -> Void) -> Void = { then in then() }
    /// Id and owner (nil: the user's) of a timer removed.
    package var removed: (UInt64, String?) -> Void = { _, _ in }

    package init() {}
}

/// The timer service's rules, without the bus: one engine, the notifier,
/// stable ids, and the state file written before any call is answered and
/// after every change, so that nothing acknowledged is lost.
///
/// `@unchecked Sendable`: used on one thread (the service's main loop); the
/// engine is polled there, so its handlers run there too.
package final class TimerService: @unchecked Sendable {
    package enum Kind: String, CaseIterable, Sendable {
        case countdown, stopwatch, alarm, calendar
    }

    /// A timer as the service knows it besides the engine.
    struct Entry {
        let id: UInt64
        var timer: TimerID
        let kind: Kind
        /// What its alarm shows and plays.
        var settings: AlarmSettings
        /// The sandboxed app that made it (`Caller.app`); nil: the user.
        var owner: String? = nil
        /// Its notification's id on the server: after a restart the new
        /// notification replaces the one the killed service left showing.
        var notification: UInt32? = nil
        /// Start when that timer finishes (a sequence run by the service).
        var after: UInt64?
        /// Wall-clock time (Unix seconds) it finished at, once it has.
        var finishedAt: Double?
        /// How many times it has finished (a calendar alarm: rung).
        var finishes: UInt64 = 0
        /// A calendar alarm snoozed: the wall-clock time (Unix seconds) it
        /// rings once more (its own times stay).
        var snoozedUntil: Double?
        /// False from a finish's record until its signals are out and its
        /// alert is up (or could not be): a restart announces it again.
        var announced = true
        /// Set for a timer restored as having run out while the service was
        /// away, until its FINISH (then its alert, by how long ago) arrives:
        /// the record it was restored from (still running there), which the
        /// files keep meanwhile, so that a crash before the FINISH is
        /// announced leaves it to be announced next time.
        var heldRecord: [(String, JSON)]?
        /// Its own command, run at each finish or ring (`exec`; the user's only).
        var command: String?
        /// Commands due for its events and not over yet (`TimerService+Scripts`).
        var runsDue: [DueRun] = []
        /// Wall-clock time (Unix seconds) it was started or snoozed at, as
        /// the history tells it; nil when unknown (it started before the
        /// service did) or told already (`TimerService+History`).
        var startedAt: Double?
        /// Running time (seconds) the history has told already: a snoozed
        /// countdown's next finish tells only the time since.
        var historyElapsed: Double = 0
    }

    /// What one user's service holds and takes at most (docs/dbus.md, Limits).
    package struct Limits: Sendable {
        /// Timers kept at once: finished and cancelled ones count until
        /// they are removed (`Remove`, `tocsin rm --finished`). A timer
        /// costs about 1.5 KB; 10,000 list in 13 to 30 ms (`ListColumns`).
        package var timers = 10_000
        /// Timers one sandboxed app keeps at once (of `timers`).
        package var perApp = 100
        /// A calendar spec's length in bytes (systemd's longest are ~100).
        package static let specBytes = 1024
        /// Any other string option's length in bytes (a sound file's path:
        /// PATH_MAX). Labels: `TimerEngine.maxLabelBytes`.
        package static let textBytes = 4096
        /// Entries in one `Add`'s options (more than it knows; a caller cannot make
        /// the service decode a million before refusing them).
        package static let options = 64

        package init() {}
    }

    package let engine: TimerEngine
    package var limits = Limits()
    let store: ServiceStore?
    let notifier: Notifier?
    package var signals = ServiceSignals()
    /// Where what the timers did is appended (nil: nowhere, as without a store).
    package var history: HistoryLog?
    /// A finish announced more than this long after it happened gets a
    /// quiet alert ("Tea ran out 3 h ago") instead of the alarm.
    package var grace: Double = 3600
    var entries: [UInt64: Entry] = [:]
    /// Each timer's state as last written to the state file.
    var savedStates: [UInt64: TimerState] = [:]
    var idsByHandle: [UInt64: UInt64] = [:]
    /// The countdowns that ring snoozed calendar alarms, by the alarm's id.
    var snoozeRings: [UInt64: TimerID] = [:]
    var nextID: UInt64 = 1
    /// The number of the last change written (see `ServiceStore`).
    var changeNumber: Int64 = 0
    /// Lines in the journal since the last snapshot.
    var journalLines = 0
    /// Timers changed by events whose records could not be written yet.
    var unsaved: Set<UInt64> = []
    /// True during a group of calls (`beginGroup`): saves are written, and
    /// synced once at `endGroup`.
    var grouping = false
    /// Set when a group could not be saved: nothing more is written (the
    /// files hold what was last answered; the service stops).
    var savingStopped = false
    /// The server id of the notifier's summary of the live timers beyond
    /// its limit, while one shows: kept in the snapshot, so that after a
    /// crash the next summary replaces it rather than leaving it orphaned.
    var summaryNotification: UInt32?
    /// How many of its timers' finish alerts are on screen (the notifier's count).
    var finishAlertsShowing = 0
    /// Called when `isIdle` may have changed without a call or an engine
    /// event (an alert closed): the service's main loop checks it again.
    package var idleMayChange: () -> Void = {}
    /// Called before a timer's start, change or ring is handled, while
    /// texts about it may be written (`SessionLocale`).
    var localeMayChange: () -> Void = {}
    /// Runs its argument once the session's locale asked for by
    /// `localeMayChange` is known (`SessionLocale.whenSettled`; at once
    /// without one): a finish's alert is written in it.
    var afterLocale: (@escaping () -> Void) -> Void = { then in then() }
    /// What events have to say (their signals, a finish's announcement),
    /// said in order once their records are synced (`flushEvents`).
    var eventSignals: [() -> Void] = []
    /// Event records were written to the journal and not synced yet.
    var eventsUnsynced = false
    /// The timers whose unsynced event records those are.
    var unsyncedEventIDs: Set<UInt64> = []
    /// Runs `flushEvents` once the loop is idle.
    lazy var eventFlush = IdleWork { [unowned self] in flushEvents() }
    /// Runs the commands of timers' events (`TimerService+Scripts`).
    let scripts = ScriptRunner()
    /// The hook files' folder; nil: no hooks (tests of the rules).
    package var hooksFolder: String?
    /// What is wrong with each hook file that cannot run, as last said.
    var hookComplaints: [String: String] = [:]
    /// Timers whose runs due reached `maxRunsDue` (said once each).
    var runsDueFull: Set<UInt64> = []
    /// Timers with runs not yet handed to `scripts`.
    var scriptsDue: Set<UInt64> = []
    /// The timer of each run handed to `scripts`, by its token.
    var scriptTokens: [UInt64: UInt64] = [:]
    var nextScriptToken: UInt64 = 1
    /// False until `startScripts`: commands wait for the service to be on the bus.
    var scriptsStarted = false
    /// Hands due runs to `scripts` once the loop is idle.
    lazy var scriptLaunch = IdleWork(priority: G_PRIORITY_LOW) { [unowned self] in launchScripts() }

    /// Loads the timers of `store` (if any) into `engine`.
    package init(engine: TimerEngine, store: ServiceStore?, notifier: Notifier?) {
        self.engine = engine
        self.store = store
        self.notifier = notifier
        history = store.map(HistoryLog.init(beside:))
        notifier?.setReportHandler { [unowned self] report in
            guard let timer = report.timer else { return }
            if report.finish, report.kind == .shown || report.kind == .alertFailed {
                let notification = report.notification
                Self.onMainLoop { [unowned self] in
                    if let id = idsByHandle[timer.rawValue] { noteAnnounced(id, notification: notification) }
                }
            } else if report.kind == .shown, let notification = report.notification {
                Self.onMainLoop { [unowned self] in noteNotification(notification, of: timer) }
            } else if report.kind == .dismissed {
                Self.onMainLoop { [unowned self] in noteNotification(nil, of: timer) }
            }
        }
        notifier?.setSummaryHandler { [unowned self] notification in
            Self.onMainLoop { [unowned self] in noteSummary(notification) }
        }
        notifier?.setFinishAlertsHandler { [unowned self] count in
            Self.onMainLoop { [unowned self] in
                finishAlertsShowing = count
                idleMayChange()
            }
        }
        scripts.ended = { [unowned self] token in scriptEnded(token) }
        if let store { restore(from: store) }
    }

    /// Keeps the summary's id (nil: closed). In the snapshot only: it
    /// changes when the live timers cross the limit, and a journal line of
    /// a new kind would make an older version set the files aside.
    private func noteSummary(_ notification: UInt32?) {
        guard notification != summaryNotification else { return }
        summaryNotification = notification
        try? snapshot()  // (if it cannot be written now, it goes with the next snapshot)
    }

    /// Keeps the id of the notification showing for `timer` (saved when
    /// new); nil: it was closed (a restart has nothing to replace).
    private func noteNotification(_ notification: UInt32?, of timer: TimerID) {
        guard let id = idsByHandle[timer.rawValue], entries[id]?.notification != notification else { return }
        entries[id]?.notification = notification
        saveAfterEvent([id])
    }

    /// True if the engine's wake timers can wake the machine (the service
    /// has CAP_WAKE_ALARM): the `CanWake` property.
    package var canWake: Bool { (try? engine.wakeFailureReason()) == .some(nil) }

    /// True while no timer runs, is suspended, waits for one that does, or
    /// has a finish being announced or its alert on screen: the service may
    /// exit. (Exiting closes its notifications: an alarm nobody has seen
    /// yet would go with it, and its buttons would answer to no one.) A
    /// command due or running keeps it up too.
    package var isIdle: Bool {
        finishAlertsShowing == 0 && !scripts.isBusy && entries.values.allSatisfy { entry in
            let state = try? engine.state(of: entry.timer)
            return state != .running && state != .suspended && !mayStart(entry) && entry.announced && entry.runsDue.isEmpty
        }
    }

    // MARK: - Bookkeeping

    func forget(_ id: UInt64) {
        if let entry = entries.removeValue(forKey: id) { idsByHandle[entry.timer.rawValue] = nil }
        endSnooze(of: id)
    }

    /// Undoes an `add` that could not be completed or saved.
    func drop(_ id: UInt64, _ timer: TimerID) {
        forget(id)
        notifier?.detach(timer, in: engine)
        try? engine.free(timer)
    }

    /// Registers `entry` again, as it was (a removal that could not be saved).
    func adoptAgain(_ entry: Entry) {
        entries[entry.id] = entry
        idsByHandle[entry.timer.rawValue] = entry.id
    }

    func lookUp(_ id: UInt64) throws(ServiceError) -> Entry {
        guard let entry = entries[id] else { throw ServiceError(.noSuchTimer, "no timer \(id)") }
        return entry
    }

    /// Refuses a call of `caller` on timer `id` unless it may control it:
    /// a sandboxed app only the timers it made.
    package func authorize(_ id: UInt64, for caller: Caller) throws(ServiceError) {
        let entry = try lookUp(id)
        guard caller.owns(entry.owner) else {
            throw ServiceError(.notPermitted, "timer \(id) is not \(caller.app ?? "")'s: a sandboxed app controls only the timers it made")
        }
    }

    func engineCall<Result>(_ body: () throws(TocsinError) -> Result) throws(ServiceError) -> Result {
        do throws(TocsinError) {
            return try body()
        } catch {
            throw ServiceError(error)
        }
    }
}
