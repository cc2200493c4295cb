import Tocsin
import TocsinNotify

/// What the countdown and calendar alarm runners stand on: the terminal
/// session, and the desktop notifier their options ask for with its reports
/// (`CountdownOptions.makeNotifier`).
struct AlarmSession {
    let terminal: TerminalSession
    let notifier: Notifier?
    /// `--json` or a live display: the notifier's reports, for the output.
    let reports: NotifierReports?

    init(options: CountdownOptions) throws(TocsinError) {
        terminal = try TerminalSession(json: options.json)
        (notifier, reports) = options.makeNotifier()
    }
}

/// A runner on an `AlarmSession`: its parts by their short names.
protocol AlarmRunner: AnyObject {
    var alarmSession: AlarmSession { get }
}

extension AlarmRunner {
    var session: TerminalSession { alarmSession.terminal }
    var output: Output { session.output }
    var loop: EventLoop { session.loop }
    var notifier: Notifier? { alarmSession.notifier }
    var reports: NotifierReports? { alarmSession.reports }
}
