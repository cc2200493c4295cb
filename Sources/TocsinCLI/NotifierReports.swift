import Tocsin
import TocsinBase
import TocsinNotify

/// The notifier's reports as `--json` events. They arrive on the notifier's
/// threads and wait here until the command's thread writes them
/// (`drain`), between events and while it waits for the alert at the end:
/// `{"event":"notifier","report":"sound_failed","label":"Tea","detail":"..."}`.
///
/// `@unchecked Sendable`: `queue` is guarded by `lock`.
final class NotifierReports: @unchecked Sendable {
    private let lock = TocsinLock()
    private var queue: [NotifierReport] = []

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
        for report in arrived {
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
    /// sound), quiet with `--json`, whose reports then come as events.
    func makeNotifier() -> (Notifier?, NotifierReports?) {
        let notifier = settings.popup || settings.sound ? try? Notifier(options: .init(quiet: json)) : nil
        return (notifier, json ? notifier.map(NotifierReports.init(of:)) : nil)
    }
}
