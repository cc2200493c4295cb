import Glibc
import Tocsin
import TocsinBase
package import TocsinService

/// `tocsin ls --format FORMAT [--follow]`: the status line of the service's
/// timers for a bar. Following, it keeps the timers as the service's signals
/// change them, redraws at every whole second, and writes a line only when
/// it differs from the last: silent while nothing changes. A bar that stops
/// reading slows nothing: the service sends its signals regardless, and
/// this command keeps reading them and keeps only the newest line for the
/// bar (`LatestLineWriter`). i3bar's clicks (standard input) pause, resume
/// or snooze the timer shown.
///
/// Each signal updates its timer's row; the timers are listed again only
/// when the signals no longer tell the whole story (a finish or removal of
/// a timer it does not know, the service back after it was gone), without
/// waiting for the answer, once however many signals ask meanwhile.
package final class StatusLine {
    private let client: ServiceClient
    private let format: StatusBar.Format
    private let template: String?
    private var seen: [UInt64: StatusBar.Seen] = [:]
    /// A list asked for and not answered yet; lost track again meanwhile.
    private var listing = false
    private var listAgain = false
    private var last: String?
    private var written = 0
    private var output: LatestLineWriter?

    package init(client: ServiceClient, format: StatusBar.Format, template: String?) {
        self.client = client
        self.format = format
        self.template = template
    }

    package func run(follow: Bool) throws(ServiceClient.Failure) {
        if follow {  // before the list: see subscribe
            client.subscribe { [unowned self] change in
                switch change {
                case .changed(let timer):  // the whole timer
                    seen[timer.id] = StatusBar.Seen(timer, at: Clocks.monotonic())
                case .finished(let id, let label, let lateness, _, _):  // ringing (a calendar alarm stays running)
                    if seen[id] == nil { return relist() }
                    seen[id]?.rang(label: label, lateness: lateness, now: Clocks.monotonic())
                case .removed(let id):
                    if seen.removeValue(forKey: id) == nil { return relist() }
                }
                update()
            }
            client.onServiceBack { [unowned self] in relist() }
        }
        try load()
        if !follow {
            return Descriptor.say(StatusBar.render(summary(), format: format, template: template))
        }
        let output = LatestLineWriter()
        self.output = output
        if format == .i3bar { output.write(StatusBar.i3barHeader) }
        update()
        client.follow(beat: { [unowned self] in update() }, readInput: format == .i3bar) { [unowned self] line in click(line) }
    }

    private func load() throws(ServiceClient.Failure) {
        take(try client.list())
    }

    private func take(_ timers: [ServiceClient.Timer]) {
        let now = Clocks.monotonic()
        seen = [:]
        for timer in timers { seen[timer.id] = StatusBar.Seen(timer, at: now) }
    }

    /// Lists the timers again, without waiting; a failure is said on
    /// standard error and leaves the rows as they were.
    private func relist() {
        guard !listing else {
            listAgain = true
            return
        }
        listing = true
        client.list { [unowned self] result in
            listing = false
            switch result {
            case .success(let timers): take(timers)
            case .failure(let failure):
                Descriptor.complain("tocsin: " + tr("the status line may be out of date: listing the timers failed: {reason}",
                                                    ["reason": failure.message]))
            }
            if listAgain {
                listAgain = false
                relist()
            }
            update()
        }
    }

    private func summary() -> StatusBar.Summary {
        StatusBar.summary(seen.values.sorted { $0.timer.id < $1.timer.id }, now: Clocks.monotonic())
    }

    /// Writes the line if it changed.
    private func update() {
        let line = StatusBar.render(summary(), format: format, template: template)
        guard line != last else { return }
        last = line
        let text = format == .i3bar && written > 0 ? "," + line : line
        if let output { output.write(text) } else { Descriptor.say(text) }
        written += 1
    }

    /// An i3bar click event (`{"name":"tocsin","button":1,…}`, after the
    /// opening "[" line, each but the first after a ","): button 1 acts on
    /// the timer shown.
    private func click(_ line: String) {
        var bytes = Array(line.utf8)
        while let first = bytes.first, first == UInt8(ascii: ",") || first == UInt8(ascii: "[") || first == UInt8(ascii: " ") {
            bytes.removeFirst()
        }
        guard let event = JSON.parse(bytes), case .integer(1)? = event["button"] else { return }
        let summary = summary()
        guard let id = summary.id, let action = StatusBar.clickAction(summary) else { return }
        let method = ["pause": "Pause", "resume": "Resume", "snooze": "Snooze"][action] ?? "Pause"
        _ = try? client.control(method, id, delta: method == "Snooze" ? 0 : nil)  // its Changed updates the row
    }
}
