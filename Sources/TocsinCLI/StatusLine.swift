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
package final class StatusLine {
    private let client: ServiceClient
    private let format: StatusBar.Format
    private let template: String?
    private var seen: [UInt64: StatusBar.Seen] = [:]
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
                case .changed(let timer): seen[timer.id] = StatusBar.Seen(timer, at: Clocks.monotonic())
                case .finished: relist()  // a calendar alarm's ring changes no state
                case .removed(let id): seen[id] = nil
                }
                update()
            }
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
        let now = Clocks.monotonic()
        seen = [:]
        for timer in try client.list() { seen[timer.id] = StatusBar.Seen(timer, at: now) }
    }

    private func relist() {
        try? load()
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
        _ = try? client.control(method, id, delta: method == "Snooze" ? 0 : nil)
        relist()
        update()
    }
}
