// TocsinNotify is for Swift programs too: it builds as a dependency, and a
// notifier attaches an engine's timer (the desktop itself is tested in
// Tests/desktop; here there may be no session bus, and that is no error).
import Tocsin
import TocsinNotify

let engine = try TimerEngine(delivery: .manualClock)
let tea = try engine.countdown(.seconds(3))
let notifier = try Notifier(options: .init(quiet: true))
try notifier.attach(tea, in: engine, alert: Alert(summary: "Tea is ready"))
notifier.detach(tea, in: engine)
engine.close()
print("notifier: attached and detached")
