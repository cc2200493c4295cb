// Must not compile (scripts/test-as-dependency.sh): a reading of one of a
// ManualClock machine's clocks is not an instant of another, as with the
// real clocks.
// error: cannot convert value of type 'ManualClock.Wall.Instant' (aka 'ClockInstant<WallClock>') to expected argument type 'ManualClock.Instant'
import Tocsin

let clock = ManualClock()
try await clock.sleep(until: clock.wall.now)
