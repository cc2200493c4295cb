//! Plain values: events, states, clocks, policies, and the seconds every
//! call takes.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use tocsin_sys as sys;

/// A timer's id within its engine (`tocsin_timer`): never 0, never reused
/// for the life of the engine, unknown to every other engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TimerId(pub u64);

/// A timer's state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum State {
    /// Created, never started.
    Idle,
    /// Time is running.
    Running,
    /// Time is held; resume carries on exactly.
    Suspended,
    /// A countdown or alarm ran out (stopwatches never finish).
    Finished,
    /// Cancelled while running or suspended.
    Canceled,
}

impl State {
    pub(crate) fn from_c(value: i32) -> Option<State> {
        Some(match value {
            sys::TOCSIN_IDLE => State::Idle,
            sys::TOCSIN_RUNNING => State::Running,
            sys::TOCSIN_SUSPENDED => State::Suspended,
            sys::TOCSIN_FINISHED => State::Finished,
            sys::TOCSIN_CANCELED => State::Canceled,
            _ => return None,
        })
    }

    /// In words, as the messages say it: "is running", "is paused".
    pub(crate) fn words(self) -> &'static str {
        match self {
            State::Idle => "has not started",
            State::Running => "is running",
            State::Suspended => "is paused",
            State::Finished => "has finished",
            State::Canceled => "was cancelled",
        }
    }
}

/// What an event reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EventKind {
    /// Tick k: k x the tick interval of running time passed.
    Tick,
    /// The timer changed state ([`Event::state`]), or was adjusted.
    State,
    /// A countdown or alarm ran out (a calendar alarm rang); for a
    /// countdown a STATE(Finished) follows.
    Finish,
}

/// One event of one timer, as the library delivers it.
///
/// All times are seconds of the timer's clock.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Event {
    /// What happened.
    pub kind: EventKind,
    /// The timer's state after this event.
    pub state: State,
    /// The timer it belongs to ([`Engine::timer`](crate::Engine::timer) makes a handle of it).
    pub timer: TimerId,
    /// Seconds of running time (suspended time excluded); on a TICK exactly
    /// tick x interval.
    pub elapsed: f64,
    /// Seconds left (0 on FINISH); `None` for a stopwatch.
    pub remaining: Option<f64>,
    /// The 1-based tick number on a TICK, else 0.
    pub tick: u64,
    /// Seconds from the event's due time to its delivery (never negative;
    /// always 0 on a manual clock unless a simulated suspend delayed it).
    pub lateness: f64,
    /// On a coalesced or folded TICK the ticks skipped before it; on a
    /// calendar alarm's FINISH the occurrences passed over; else 0.
    pub missed: u64,
}

impl Event {
    /// The event the library passed; None for a kind or state this crate
    /// does not know (a newer library), which is then not delivered.
    pub(crate) fn from_c(event: &sys::tocsin_event) -> Option<Event> {
        let kind = match event.kind {
            sys::TOCSIN_EVENT_TICK => EventKind::Tick,
            sys::TOCSIN_EVENT_STATE => EventKind::State,
            sys::TOCSIN_EVENT_FINISH => EventKind::Finish,
            _ => return None,
        };
        Some(Event {
            kind,
            state: State::from_c(event.state)?,
            timer: TimerId(event.timer),
            elapsed: event.elapsed,
            remaining: if event.remaining < 0.0 {
                None
            } else {
                Some(event.remaining)
            },
            tick: event.tick,
            lateness: event.lateness,
            missed: event.missed,
        })
    }
}

/// Which clock a timer counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Clock {
    /// Real time, time the machine spends suspended included
    /// (`CLOCK_BOOTTIME`; the default for countdowns and stopwatches): a
    /// 25-minute countdown ends 25 real minutes after its start.
    Boot,
    /// Only time the machine is awake (`CLOCK_MONOTONIC`): a suspend pauses
    /// it (a pomodoro, a work timer). Not for alarms.
    Awake,
    /// The wall clock (`CLOCK_REALTIME`): the clock of alarms and calendar
    /// alarms ([`Engine::alarm`](crate::Engine::alarm),
    /// [`Engine::calendar`](crate::Engine::calendar)), which follow every
    /// change of it. [`Timer::clock`](crate::Timer::clock) says `Wall` for
    /// them; [`Timer::set_clock`](crate::Timer::set_clock) cannot choose it
    /// (make an alarm instead).
    Wall,
}

/// What happens to ticks that are all due when the engine gets to them
/// (after a stall, a suspend, a long advance).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TickPolicy {
    /// Each one is delivered, with its own number (the default).
    Every,
    /// One TICK for the latest; [`Event::missed`] counts the ones skipped.
    Coalesce,
}

/// Which kinds of event reach a timer's callback: a set of bits, combined
/// with `|`. Observers (and [`Events`](crate::Events)) see every kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct EventMask(pub(crate) u32);

impl EventMask {
    /// No events.
    pub const NONE: EventMask = EventMask(0);
    /// TICK events.
    pub const TICK: EventMask = EventMask(sys::TOCSIN_EVENTS_TICK);
    /// STATE events.
    pub const STATE: EventMask = EventMask(sys::TOCSIN_EVENTS_STATE);
    /// FINISH events.
    pub const FINISH: EventMask = EventMask(sys::TOCSIN_EVENTS_FINISH);
    /// Every kind (the default).
    pub const ALL: EventMask = EventMask(sys::TOCSIN_EVENTS_ALL);

    /// Whether every kind in `other` is in this set.
    pub fn contains(self, other: EventMask) -> bool {
        self.0 & other.0 == other.0
    }
}

impl std::ops::BitOr for EventMask {
    type Output = EventMask;
    fn bitor(self, other: EventMask) -> EventMask {
        EventMask(self.0 | other.0)
    }
}

/// A length of time in seconds, as every call takes it: `f64`, `f32`, an
/// integer, or a [`Duration`]. The library checks the value (NaN, negative,
/// infinite, too large: [`Error::InvalidArgument`](crate::Error::InvalidArgument)),
/// and keeps the nearest whole nanosecond.
pub trait IntoSeconds {
    /// The seconds as `f64`.
    fn into_seconds(self) -> f64;
}

impl IntoSeconds for f64 {
    fn into_seconds(self) -> f64 {
        self
    }
}
impl IntoSeconds for f32 {
    fn into_seconds(self) -> f64 {
        f64::from(self)
    }
}
impl IntoSeconds for i32 {
    fn into_seconds(self) -> f64 {
        f64::from(self)
    }
}
impl IntoSeconds for u32 {
    fn into_seconds(self) -> f64 {
        f64::from(self)
    }
}
impl IntoSeconds for i64 {
    fn into_seconds(self) -> f64 {
        self as f64
    }
}
impl IntoSeconds for u64 {
    fn into_seconds(self) -> f64 {
        self as f64
    }
}
impl IntoSeconds for Duration {
    fn into_seconds(self) -> f64 {
        self.as_secs_f64()
    }
}

/// A wall-clock time, as alarms take it: seconds since 1970-01-01 00:00 UTC
/// (`f64` or an integer), or a [`SystemTime`].
pub trait IntoUnixTime {
    /// Seconds since 1970-01-01 00:00 UTC (negative before it, which the
    /// library refuses).
    fn into_unix_seconds(self) -> f64;
}

impl IntoUnixTime for f64 {
    fn into_unix_seconds(self) -> f64 {
        self
    }
}
impl IntoUnixTime for i64 {
    fn into_unix_seconds(self) -> f64 {
        self as f64
    }
}
impl IntoUnixTime for i32 {
    fn into_unix_seconds(self) -> f64 {
        f64::from(self)
    }
}
impl IntoUnixTime for u64 {
    fn into_unix_seconds(self) -> f64 {
        self as f64
    }
}
impl IntoUnixTime for SystemTime {
    fn into_unix_seconds(self) -> f64 {
        match self.duration_since(UNIX_EPOCH) {
            Ok(after) => after.as_secs_f64(),
            Err(before) => -before.duration().as_secs_f64(),
        }
    }
}

/// "NaN", "-1", "inf": a value as messages show it.
pub(crate) fn shown(value: f64) -> String {
    if value.is_nan() {
        "NaN".to_string()
    } else {
        format!("{value}")
    }
}
