//! [`ManualEngine`]: a clock that moves only when told, for tests.

use std::ops::Deref;
use std::os::raw::c_int;

use tocsin_sys as sys;

use crate::engine::Engine;
use crate::error::{check, Error, Result};
use crate::events::Events;
use crate::values::{shown, IntoSeconds, IntoUnixTime};

/// An engine whose clock never reads the real one: time starts at 0 and
/// moves only with [`advance`](ManualEngine::advance) (and
/// [`simulate_suspend`](ManualEngine::simulate_suspend),
/// [`set_wall_clock`](ManualEngine::set_wall_clock)), which deliver what fell
/// due, in order, on the calling thread. Deterministic and instant: for tests.
///
/// ```
/// use tocsin::{Clock, State};
/// let engine = tocsin::Engine::manual_clock()?;
/// let tea = engine.countdown(180)?;
/// let work = engine.countdown(180)?;
/// work.set_clock(Clock::Awake)?; // a suspend pauses it
/// tea.start()?;
/// work.start()?;
/// engine.simulate_suspend(120)?; // the lid closed for two minutes
/// assert_eq!(tea.remaining()?, Some(60.0));
/// assert_eq!(work.remaining()?, Some(180.0));
/// engine.advance(60)?;
/// assert_eq!(tea.state()?, State::Finished);
/// assert_eq!(work.remaining()?, Some(120.0));
/// # Ok::<(), tocsin::Error>(())
/// ```
#[derive(Debug)]
pub struct ManualEngine(pub(crate) Engine);

impl ManualEngine {
    /// A new engine on a manual clock (as [`Engine::manual_clock`]).
    pub fn new() -> Result<ManualEngine> {
        Engine::manual_clock()
    }

    /// Moves the clock on by `seconds` (0 allowed) and delivers every event
    /// due by then, in order, including those the closures cause. Returns
    /// how many closures and observers it called. Errors:
    /// [`Error::InvalidArgument`] for NaN, negative, infinite or too large
    /// seconds; [`Error::WrongState`] from inside a closure.
    pub fn advance<S: IntoSeconds>(&self, seconds: S) -> Result<usize> {
        let seconds = seconds.into_seconds();
        // SAFETY: ptr valid.
        let status = unsafe { sys::tocsin_engine_advance(self.0.inner.ptr, seconds) };
        moved(status, "advance", seconds)
    }

    /// Simulates a suspend of the machine for `seconds`: the boot and wall
    /// clocks move on, the awake clock does not ([`Clock::Awake`](crate::Clock::Awake)
    /// timers stand still); what fell due meanwhile is delivered, late.
    pub fn simulate_suspend<S: IntoSeconds>(&self, seconds: S) -> Result<usize> {
        let seconds = seconds.into_seconds();
        // SAFETY: ptr valid.
        let status = unsafe { sys::tocsin_engine_simulate_suspend(self.0.inner.ptr, seconds) };
        moved(status, "simulate_suspend", seconds)
    }

    /// Sets the simulated wall clock to `when`, forward or back (the boot
    /// and awake clocks stay), and delivers what that makes due: alarms it
    /// passes finish.
    pub fn set_wall_clock<T: IntoUnixTime>(&self, when: T) -> Result<usize> {
        let when = when.into_unix_seconds();
        // SAFETY: ptr valid.
        let status = unsafe { sys::tocsin_engine_set_wall_clock(self.0.inner.ptr, when) };
        if status == sys::TOCSIN_EINVAL {
            let detail = format!(
                "the time must be finite, at least 0 and at most 3155760000, got {}",
                shown(when)
            );
            return Err(Error::new(status, "set_wall_clock", Some(&detail)));
        }
        check(status, "set_wall_clock").map(|n| n as usize)
    }

    /// The events delivered so far and not yet taken, as an iterator that
    /// never waits (nothing comes on a manual clock until it is moved):
    /// `next()` is `None` when none is queued.
    pub fn events(&self) -> Result<Events> {
        Events::new(&self.0.inner, None)
    }
}

fn moved(status: c_int, call: &str, seconds: f64) -> Result<usize> {
    if status == sys::TOCSIN_EINVAL {
        let detail = format!(
            "seconds must be finite, at least 0 and at most 3155760000, got {}",
            shown(seconds)
        );
        return Err(Error::new(status, call, Some(&detail)));
    }
    check(status, call).map(|n| n as usize)
}

impl Deref for ManualEngine {
    type Target = Engine;
    fn deref(&self) -> &Engine {
        &self.0
    }
}
