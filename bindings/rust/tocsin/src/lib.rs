//! Timers that keep counting while the machine sleeps: countdowns,
//! stopwatches with laps, wall-clock alarms and calendar alarms
//! (`"Mon..Fri 07:00"`), many on one kernel timer, from Tocsin's engine
//! (libtocsin.so, through [`tocsin_sys`]).
//!
//! Std's and tokio's timers count `CLOCK_MONOTONIC`, which stands still
//! while a laptop is suspended, and know nothing of wall-clock changes. A
//! Tocsin countdown counts `CLOCK_BOOTTIME` (or, if asked, only awake time:
//! [`Clock::Awake`]); an alarm follows every change of the wall clock; a
//! timer may wake the machine ([`Timer::set_wake`]); and an engine on a
//! manual clock ([`ManualEngine`]) makes all of it testable without sleeping.
//!
//! ```
//! use std::sync::mpsc;
//! let engine = tocsin::Engine::new()?; // closures run on the engine's thread
//! let tea = engine.countdown(0.05)?;
//! tea.set_label("Tea")?;
//! let (done, finished) = mpsc::channel();
//! tea.on_event(move |event| {
//!     if event.kind == tocsin::EventKind::Finish {
//!         done.send(event.timer).unwrap();
//!     }
//! })?;
//! tea.start()?;
//! assert_eq!(finished.recv().unwrap(), tea.id());
//! # Ok::<(), tocsin::Error>(())
//! ```
//!
//! Three modes: [`Engine`] (its own thread), [`PolledEngine`] (your event
//! loop; with the `tokio` feature, `tokio::AsyncEngine`), [`ManualEngine`]
//! (tests). Every call may be made from any thread and from inside a
//! closure; no closure ever runs while a lock is held. Bad input (NaN,
//! negative seconds, an over-long label, a freed timer) gives an
//! [`Error`], never a panic.
//!
//! Features: `notify` (desktop alerts through libtocsin-notify.so:
//! `notify::Notifier`), `tokio` (an async face on a polled engine).
//!
//! Building needs libtocsin.so: the build finds it by `TOCSIN_LIB_DIR` or
//! `pkg-config tocsin`; running needs it on the loader's path
//! (`LD_LIBRARY_PATH` for a build tree).
#![deny(unsafe_op_in_unsafe_fn)]
#![deny(missing_docs)]
#![warn(clippy::undocumented_unsafe_blocks)]
// tocsin_tsan: set by scripts/test-rust.sh for its ThreadSanitizer build.
#![allow(unknown_lints, unexpected_cfgs)]

mod calendar;
mod engine;
mod error;
mod events;
mod inner;
mod manual;
mod polled;
mod timer;
mod timer_events;
mod values;

#[cfg(feature = "notify")]
pub mod notify;
#[cfg(feature = "tokio")]
pub mod tokio;

pub use calendar::{calendar_check, calendar_next};
pub use engine::Engine;
pub use error::{Error, Result};
pub use events::Events;
pub use inner::Mode;
pub use manual::ManualEngine;
pub use polled::PolledEngine;
pub use timer::Timer;
pub use values::{Clock, Event, EventKind, EventMask, IntoSeconds, IntoUnixTime, State, TickPolicy, TimerId};

/// The README's examples, run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeExamples;

/// The raw declarations this crate wraps.
pub use tocsin_sys as sys;

/// The library's version ("0.8.0"), as `tocsin_version()` gives it.
pub fn version() -> &'static str {
    // SAFETY: a static NUL-terminated ASCII string that must not be freed.
    let text = unsafe { std::ffi::CStr::from_ptr(sys::tocsin_version()) };
    text.to_str().unwrap_or("?")
}
