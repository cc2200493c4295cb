//! Raw declarations of Tocsin's C interface: `tocsin.h` (libtocsin.so) and,
//! with the `notify` feature, `tocsin_notify.h` (libtocsin-notify.so).
//!
//! The header is the reference manual: every function here is documented
//! there (ownership, threads, errors, which callbacks it may trigger). This
//! crate only declares; the safe crate `tocsin` wraps it.
//!
//! The build script finds the library through `TOCSIN_LIB_DIR` or the
//! `pkg-config` program (`tocsin.pc`, `tocsin-notify.pc`).
#![allow(non_camel_case_types)]
#![deny(unsafe_op_in_unsafe_fn)]

use std::marker::{PhantomData, PhantomPinned};
// std::os::raw, not core::ffi: core::ffi::c_int and friends came in Rust 1.64.
use std::os::raw::{c_char, c_int, c_uint, c_void};

/// `size_t`.
pub type size_t = usize;

/// An engine: a set of timers and one delivery mode. Opaque.
#[repr(C)]
pub struct tocsin_engine {
    _private: [u8; 0],
    _marker: PhantomData<(*mut u8, PhantomPinned)>,
}

/// A timer's handle within its engine; 0 is never valid.
pub type tocsin_timer = u64;
/// An engine-wide observer's id; 0 is never valid.
pub type tocsin_observer = u64;

// ----------------------------------------------------------------- version --

/// The header's major version.
pub const TOCSIN_VERSION_MAJOR: c_uint = 0;
/// The header's minor version.
pub const TOCSIN_VERSION_MINOR: c_uint = 8;
/// The header's patch version.
pub const TOCSIN_VERSION_PATCH: c_uint = 0;
/// The header's version as a string.
pub const TOCSIN_VERSION_STRING: &str = "0.8.0";
/// `(major << 16) | (minor << 8) | patch`.
pub const TOCSIN_VERSION_HEX: c_uint =
    (TOCSIN_VERSION_MAJOR << 16) | (TOCSIN_VERSION_MINOR << 8) | TOCSIN_VERSION_PATCH;

// ------------------------------------------------------------------ errors --

/// Success.
pub const TOCSIN_OK: c_int = 0;
/// "invalid argument"
pub const TOCSIN_EINVAL: c_int = -1;
/// "no such timer in this engine"
pub const TOCSIN_ENOENT: c_int = -2;
/// "not allowed in the current state or engine mode"
pub const TOCSIN_ESTATE: c_int = -3;
/// "out of memory or out of timer slots"
pub const TOCSIN_ENOMEM: c_int = -4;
/// "input/output error"
pub const TOCSIN_EIO: c_int = -5;
/// "corrupt or unsupported data"
pub const TOCSIN_ECORRUPT: c_int = -6;
/// "the engine is closed"
pub const TOCSIN_ECLOSED: c_int = -7;
/// "not available here (desktop session, server)"
pub const TOCSIN_EUNAVAILABLE: c_int = -8;
/// "no such time: the calendar spec has no occurrence after it"
pub const TOCSIN_ERANGE: c_int = -9;

// ------------------------------------------------------- states and events --

/// Created, never started.
pub const TOCSIN_IDLE: c_int = 0;
/// Time is running.
pub const TOCSIN_RUNNING: c_int = 1;
/// Time is held; resume carries on exactly.
pub const TOCSIN_SUSPENDED: c_int = 2;
/// A countdown ran out (stopwatches never finish).
pub const TOCSIN_FINISHED: c_int = 3;
/// Cancelled while running or suspended.
pub const TOCSIN_CANCELED: c_int = 4;

/// Tick k: k x interval of running time passed.
pub const TOCSIN_EVENT_TICK: c_int = 1;
/// The timer changed state (`tocsin_event::state`).
pub const TOCSIN_EVENT_STATE: c_int = 2;
/// A countdown ran out; STATE(FINISHED) follows.
pub const TOCSIN_EVENT_FINISH: c_int = 3;

/// TICK events, as a bit of `tocsin_timer_set_events`.
pub const TOCSIN_EVENTS_TICK: c_uint = 1 << TOCSIN_EVENT_TICK;
/// STATE events, as a bit.
pub const TOCSIN_EVENTS_STATE: c_uint = 1 << TOCSIN_EVENT_STATE;
/// FINISH events, as a bit.
pub const TOCSIN_EVENTS_FINISH: c_uint = 1 << TOCSIN_EVENT_FINISH;
/// Every kind of event.
pub const TOCSIN_EVENTS_ALL: c_uint = TOCSIN_EVENTS_TICK | TOCSIN_EVENTS_STATE | TOCSIN_EVENTS_FINISH;

/// One event, passed to a timer's callback; valid only during the call.
/// Fields may be added at the end in later minor versions: never make one,
/// only read the one the library passes.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct tocsin_event {
    /// `TOCSIN_EVENT_*`.
    pub kind: i32,
    /// The timer's state after this event.
    pub state: i32,
    /// The timer the event belongs to.
    pub timer: tocsin_timer,
    /// Seconds of running time (suspended time excluded).
    pub elapsed: f64,
    /// Countdown: seconds left (0 on FINISH); stopwatch: -1.
    pub remaining: f64,
    /// 1-based tick number on TICK, else 0.
    pub tick: u64,
    /// Seconds from the event's due time to its delivery (never negative).
    pub lateness: f64,
    /// Ticks skipped before a coalesced TICK, or occurrences passed over
    /// before a calendar alarm's FINISH; else 0. Since 0.3.
    pub missed: u64,
}

/// A timer's (or observer's) callback: the engine, the event, the user_data.
pub type tocsin_callback =
    Option<unsafe extern "C" fn(engine: *mut tocsin_engine, event: *const tocsin_event, user_data: *mut c_void)>;

// ------------------------------------------------------------------ limits --

/// The largest duration, tick interval or advance step: 100 years.
pub const TOCSIN_MAX_SECONDS: f64 = 3155760000.0;
/// The longest label, in bytes of UTF-8, without the terminating NUL.
pub const TOCSIN_LABEL_MAX: usize = 4096;
/// The most timers one engine holds at once.
pub const TOCSIN_TIMERS_MAX: u32 = 16777215;
/// The most ticks one delivery round delivers one by one before it folds the rest.
pub const TOCSIN_TICK_BURST: u32 = 4096;
/// The largest leeway `tocsin_timer_set_leeway` takes: a day.
pub const TOCSIN_LEEWAY_MAX_SECONDS: f64 = 86400.0;
/// How long before its deadline a wake timer wakes the machine.
pub const TOCSIN_WAKE_LEAD_SECONDS: f64 = 120.0;

// ------------------------------------------------------------ engine modes --

/// Callbacks run on the engine's own thread.
pub const TOCSIN_ENGINE_DEFAULT: c_uint = 0;
/// Callbacks run inside `tocsin_engine_dispatch` when `tocsin_engine_fd` is readable.
pub const TOCSIN_ENGINE_POLLED: c_uint = 1;
/// The real clock is never read; time moves with `tocsin_engine_advance`.
pub const TOCSIN_ENGINE_MANUAL_CLOCK: c_uint = 2;

/// Tick policy: every tick is delivered (the default).
pub const TOCSIN_TICKS_EVERY: c_int = 0;
/// Tick policy: ticks all due at once come as one, `missed` counting the rest.
pub const TOCSIN_TICKS_COALESCE: c_int = 1;

/// Clock: real time, suspends included (CLOCK_BOOTTIME; the default).
pub const TOCSIN_CLOCK_BOOT: c_int = 0;
/// Clock: only time the machine is awake (CLOCK_MONOTONIC).
pub const TOCSIN_CLOCK_AWAKE: c_int = 1;

extern "C" {
    pub fn tocsin_version() -> *const c_char;
    pub fn tocsin_version_hex() -> c_uint;
    pub fn tocsin_strerror(status: c_int) -> *const c_char;
    pub fn tocsin_err_name(status: c_int) -> *const c_char;

    pub fn tocsin_engine_new(flags: c_uint, out: *mut *mut tocsin_engine) -> c_int;
    pub fn tocsin_engine_free(engine: *mut tocsin_engine);
    pub fn tocsin_engine_close(engine: *mut tocsin_engine);
    pub fn tocsin_engine_fd(engine: *mut tocsin_engine) -> c_int;
    pub fn tocsin_engine_dispatch(engine: *mut tocsin_engine) -> c_int;
    pub fn tocsin_engine_advance(engine: *mut tocsin_engine, seconds: f64) -> c_int;
    pub fn tocsin_engine_now(engine: *mut tocsin_engine, out: *mut f64) -> c_int;
    pub fn tocsin_engine_wall_clock(engine: *mut tocsin_engine, out: *mut f64) -> c_int;
    pub fn tocsin_engine_simulate_suspend(engine: *mut tocsin_engine, seconds: f64) -> c_int;
    pub fn tocsin_engine_set_wall_clock(engine: *mut tocsin_engine, unix_seconds: f64) -> c_int;
    pub fn tocsin_engine_add_observer(
        engine: *mut tocsin_engine,
        cb: tocsin_callback,
        user_data: *mut c_void,
        out: *mut tocsin_observer,
    ) -> c_int;
    pub fn tocsin_engine_remove_observer(engine: *mut tocsin_engine, observer: tocsin_observer) -> c_int;

    pub fn tocsin_countdown_new(engine: *mut tocsin_engine, seconds: f64, out: *mut tocsin_timer) -> c_int;
    pub fn tocsin_stopwatch_new(engine: *mut tocsin_engine, out: *mut tocsin_timer) -> c_int;
    pub fn tocsin_timer_free(engine: *mut tocsin_engine, timer: tocsin_timer) -> c_int;
    pub fn tocsin_timer_set_callback(
        engine: *mut tocsin_engine,
        timer: tocsin_timer,
        cb: tocsin_callback,
        user_data: *mut c_void,
    ) -> c_int;
    pub fn tocsin_timer_set_events(engine: *mut tocsin_engine, timer: tocsin_timer, events: c_uint) -> c_int;
    pub fn tocsin_timer_events(engine: *mut tocsin_engine, timer: tocsin_timer) -> c_int;
    pub fn tocsin_timer_set_tick(engine: *mut tocsin_engine, timer: tocsin_timer, interval_seconds: f64) -> c_int;
    pub fn tocsin_timer_set_label(engine: *mut tocsin_engine, timer: tocsin_timer, label: *const c_char) -> c_int;
    pub fn tocsin_timer_label(engine: *mut tocsin_engine, timer: tocsin_timer, buf: *mut c_char, cap: size_t) -> c_int;
    pub fn tocsin_timer_start(engine: *mut tocsin_engine, timer: tocsin_timer) -> c_int;
    pub fn tocsin_timer_suspend(engine: *mut tocsin_engine, timer: tocsin_timer) -> c_int;
    pub fn tocsin_timer_resume(engine: *mut tocsin_engine, timer: tocsin_timer) -> c_int;
    pub fn tocsin_timer_cancel(engine: *mut tocsin_engine, timer: tocsin_timer) -> c_int;
    pub fn tocsin_countdown_start(
        engine: *mut tocsin_engine,
        seconds: f64,
        events: c_uint,
        cb: tocsin_callback,
        user_data: *mut c_void,
        out: *mut tocsin_timer,
    ) -> c_int;
    pub fn tocsin_timer_set_tick_policy(engine: *mut tocsin_engine, timer: tocsin_timer, policy: c_int) -> c_int;
    pub fn tocsin_timer_set_leeway(engine: *mut tocsin_engine, timer: tocsin_timer, leeway_seconds: f64) -> c_int;
    pub fn tocsin_timer_leeway(engine: *mut tocsin_engine, timer: tocsin_timer, out: *mut f64) -> c_int;
    pub fn tocsin_timer_adjust(engine: *mut tocsin_engine, timer: tocsin_timer, delta_seconds: f64) -> c_int;
    pub fn tocsin_timer_set_clock(engine: *mut tocsin_engine, timer: tocsin_timer, clock: c_int) -> c_int;
    pub fn tocsin_timer_clock(engine: *mut tocsin_engine, timer: tocsin_timer) -> c_int;
    pub fn tocsin_alarm_new(engine: *mut tocsin_engine, unix_seconds: f64, out: *mut tocsin_timer) -> c_int;
    pub fn tocsin_timer_alarm_time(engine: *mut tocsin_engine, timer: tocsin_timer, out: *mut f64) -> c_int;
    pub fn tocsin_timer_set_wake(engine: *mut tocsin_engine, timer: tocsin_timer, wake: c_int) -> c_int;
    pub fn tocsin_timer_wake(engine: *mut tocsin_engine, timer: tocsin_timer) -> c_int;
    pub fn tocsin_engine_can_wake(engine: *mut tocsin_engine) -> c_int;
    pub fn tocsin_engine_wake_reason(engine: *mut tocsin_engine, buf: *mut c_char, cap: size_t) -> c_int;

    pub fn tocsin_calendar_next(spec: *const c_char, after_unix_seconds: f64, out_unix_seconds: *mut f64) -> c_int;
    pub fn tocsin_calendar_check(spec: *const c_char, buf: *mut c_char, cap: size_t) -> c_int;
    pub fn tocsin_calendar_new(engine: *mut tocsin_engine, spec: *const c_char, out: *mut tocsin_timer) -> c_int;
    pub fn tocsin_timer_calendar(
        engine: *mut tocsin_engine,
        timer: tocsin_timer,
        buf: *mut c_char,
        cap: size_t,
    ) -> c_int;
    pub fn tocsin_calendar_skip(engine: *mut tocsin_engine, timer: tocsin_timer, count: c_uint) -> c_int;
    pub fn tocsin_calendar_skip_until(engine: *mut tocsin_engine, timer: tocsin_timer, unix_seconds: f64) -> c_int;
    pub fn tocsin_calendar_skipped_until(
        engine: *mut tocsin_engine,
        timer: tocsin_timer,
        unix_seconds_out: *mut f64,
    ) -> c_int;

    pub fn tocsin_timer_lap(engine: *mut tocsin_engine, timer: tocsin_timer, lap_out: *mut f64) -> c_int;
    pub fn tocsin_timer_laps(engine: *mut tocsin_engine, timer: tocsin_timer, buf: *mut f64, cap: size_t) -> c_int;

    pub fn tocsin_timer_state(engine: *mut tocsin_engine, timer: tocsin_timer) -> c_int;
    pub fn tocsin_timer_elapsed(engine: *mut tocsin_engine, timer: tocsin_timer, out: *mut f64) -> c_int;
    pub fn tocsin_timer_remaining(engine: *mut tocsin_engine, timer: tocsin_timer, out: *mut f64) -> c_int;
    pub fn tocsin_timer_duration(engine: *mut tocsin_engine, timer: tocsin_timer, out: *mut f64) -> c_int;

    pub fn tocsin_engine_timers(engine: *mut tocsin_engine, buf: *mut tocsin_timer, cap: size_t) -> c_int;
    pub fn tocsin_engine_save(engine: *mut tocsin_engine, path: *const c_char) -> c_int;
    pub fn tocsin_engine_load(engine: *mut tocsin_engine, path: *const c_char, restored_out: *mut size_t) -> c_int;
}

#[cfg(feature = "notify")]
mod notify;
#[cfg(feature = "notify")]
pub use notify::*;

#[cfg(test)]
mod tests;
