import Glibc
import Tocsin
import TocsinBase
import TocsinNotify

/// The notifier's reports: `--json` events, or, in words, its failures'
/// reasons, each once. They arrive on the notifier's threads and wait here
/// until the command's thread writes them (`drain`), between events and
/// while it waits for the alert at the end:
/// `{"event":"notifier","report":"sound_failed","label":"Tea","detail":"..."}`,
/// or "tocsin-notify: no session bus: …" above the live line (the notifier
/// writing it itself, from its own thread, put it at the live line's end).
///
/// `@unchecked Sendable`: `queue` is guarded by `lock`.
final class NotifierReports: @unchecked Sendable {
    private let lock = TocsinLock()
    private var queue: [NotifierReport] = []
    /// The failures' reasons said already (the command's thread only).
    private var said: [String] = []

    /// Takes the reports of `notifier` from now on.
    init(of notifier: Notifier) {
        notifier.setReportHandler { [self] report in lock.withLock { queue.append(report) } }
    }

    /// Writes what arrived as JSON events; `label` names a report's timer.
    func drain(to output: Output, label: (TimerID) -> String?) {
        let arrived = lock.withLock { () -> [NotifierReport] in
            defer { queue = [] }
            return queue
        }
        for report in arrived where output.mode != .json {
            guard report.error != nil, !said.contains(report.detail) else { continue }
            said.append(report.detail)
            output.permanent("tocsin-notify: \(report.detail)")  // (live: the notifier is quiet only then)
        }
        for report in arrived where output.mode == .json {
            var fields: [(String, JSON)] = [("event", .string("notifier")), ("report", .string(Self.name(report.kind)))]
            if let timer = report.timer, let name = label(timer) { fields.append(("label", .string(name))) }
            fields.append(("detail", .string(report.detail)))
            output.event(fields)
        }
    }

    /// `tocsin_notify.h`'s names, in lowercase.
    static func name(_ kind: NotifierReport.Kind) -> String {
        switch kind {
        case .shown: "shown"
        case .alertFailed: "alert_failed"
        case .soundPlayed: "sound"
        case .soundFailed: "sound_failed"
        case .action: "action"
        case .dismissed: "dismissed"
        case .warning: "warning"
        case .unanswered: "unanswered"
        }
    }
}

extension CountdownOptions {
    /// The desktop notifier these options ask for (none without alert and
    /// sound). With `--json` or a live display it is quiet and its reports
    /// come through the command's output (`drain`); otherwise it says its
    /// failures on standard error itself, as they happen.
    func makeNotifier() -> (Notifier?, NotifierReports?) {
        let live = isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1  // (Output's .live)
        let notifier = settings.popup || settings.sound || settings.media != nil ? try? Notifier(options: .init(quiet: json || live)) : nil
        return (notifier, json || live ? notifier.map(NotifierReports.init(of:)) : nil)
    }
}
