import ArgumentParser
import Glibc
import TocsinBase
import TocsinCLI
import TocsinService

/// `tocsin log`: the timer service's history (share/doc/tocsin/history.md), read from
/// its files; the service need not run.
struct Log: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show what the timer service's timers did: each finish, ring, snooze, cancel and stopwatch stop.",
        discussion: """
            Read from $XDG_STATE_HOME/tocsin/history.jsonl and the older history.jsonl.1 \
            (share/doc/tocsin/history.md). Lines that cannot be read are skipped and counted on standard error.

            EXAMPLES
              tocsin log --since today --sum-by label   today's time per label
              tocsin log --since 7d --csv > week.csv    the last 7 days as CSV
            """)

    @Option(help: ArgumentHelp(
        "Only what happened since DATE: today, yesterday, 2026-11-29, '2026-11-29 14:00', or 7d, 12h (back from now).",
        valueName: "date"))
    var since: String?

    @Option(help: ArgumentHelp("Only the timers with this label (exactly).", valueName: "text"))
    var label: String?

    @Flag(help: "The lines as they are in the file: one JSON object a line (with --sum-by, one a total).")
    var json = false

    @Flag(help: "CSV: a header row, then one row a line (with --sum-by, one a total).")
    var csv = false

    @Option(name: .customLong("sum-by"), help: ArgumentHelp(
        "The time that finished timers and stopped stopwatches ran, totalled per label or per local day.",
        valueName: "label|day"))
    var sumBy: String?

    func validate() throws {
        if json && csv { throw ValidationError(tr("give --json or --csv, not both")) }
        if let sumBy, HistoryReport.SumBy(rawValue: sumBy) == nil {
            throw ValidationError(tr("--sum-by takes label or day, not '{value}'", ["value": sumBy]))
        }
    }

    func run() throws {
        let since = try since.map { text throws(CommandFailure) in try HistorySince.unixSeconds(text, now: Int64(time(nil))) }
        let history = HistoryLog(beside: ServiceStore.standard())
        let reading = HistoryReading.read(history)
        for problem in reading.problems { Descriptor.complain("tocsin: " + problem) }
        if reading.skipped > 0 {
            Descriptor.complain("tocsin: " + trn("{count} line of {file} could not be read (cut short, damaged, or of a newer version): skipped",
                                                 "{count} lines of {file} could not be read (cut short, damaged, or of a newer version): skipped",
                                                 reading.skipped, ["file": history.path]))
        }
        let lines = reading.filtered(since: since, label: label)
        let output: [String]
        if let key = sumBy.flatMap(HistoryReport.SumBy.init(rawValue:)) {
            let sums = HistoryReport.sums(lines, by: key)
            output = json ? HistoryReport.sumJSON(sums, by: key) : csv ? HistoryReport.sumCSV(sums, by: key)
                : sums.isEmpty ? [tr("No finished timers in the history that match")] : HistoryReport.sumTable(sums, by: key)
        } else {
            output = json ? lines.map(\.text) : csv ? HistoryReport.csv(lines)
                : lines.isEmpty ? [reading.lines.isEmpty ? tr("No history yet in {file}", ["file": history.path])
                                                         : tr("Nothing in the history matches")]
                : HistoryReport.table(lines)
        }
        if !output.isEmpty {
            let failure = Descriptor.write(output.joined(separator: "\n") + "\n", to: STDOUT_FILENO)
            if failure != 0 && failure != EPIPE { throw CommandFailure(tr("cannot write the history: {reason}", ["reason": String(cString: strerror(failure))])) }
        }
    }
}
