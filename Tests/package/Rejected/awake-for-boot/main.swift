// Must not compile (scripts/test-as-dependency.sh): the awake clock's
// reading is not the boot clock's, on a ManualClock as on the real clocks.
// error: cannot convert value of type 'ManualClock.Awake.Instant' (aka 'ClockInstant<ManualClock.Awake>') to expected argument type 'ManualClock.Instant'
import Tocsin

let clock = ManualClock()
try await clock.sleep(until: clock.awake.now)
