//! [`Timer`]: a handle of one countdown, stopwatch, alarm or calendar alarm.

use std::os::raw::c_int;
use std::sync::Arc;

use tocsin_sys as sys;

use crate::engine::{c_string, read_string};
use crate::error::{check, Error, Result};
use crate::inner::{lock, Inner};
use crate::values::{shown, Clock, IntoSeconds, IntoUnixTime, State, TickPolicy, TimerId};

/// A handle of one timer of an engine: a countdown, stopwatch, alarm or
/// calendar alarm, made by [`Engine::countdown`](crate::Engine::countdown),
/// [`stopwatch`](crate::Engine::stopwatch), [`alarm`](crate::Engine::alarm),
/// [`calendar`](crate::Engine::calendar) or [`after`](crate::Engine::after).
///
/// A `Timer` is a handle, as the C `tocsin_timer` is: cloning it makes
/// another handle of the same timer, and dropping handles frees nothing.
/// The timer lives until [`free`](Timer::free) or until its engine is
/// dropped; a handle used after that gives [`Error::NoSuchTimer`] or
/// [`Error::Closed`], never undefined behaviour. A handle keeps the engine's
/// memory (not its timers) alive.
///
/// Thread-safety: `Send` and `Sync`; every method may be called from any
/// thread and from inside a closure (of this timer too).
///
/// State changes (`start`, `suspend`, `resume`, `cancel`, `adjust`) are
/// reported later as STATE events, never inside the call. Each costs
/// O(log n) in the number of running timers.
#[derive(Clone)]
pub struct Timer {
    pub(crate) inner: Arc<Inner>,
    pub(crate) id: u64,
}

impl std::fmt::Debug for Timer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Timer").field(&self.id).finish()
    }
}

impl PartialEq for Timer {
    /// The same timer of the same engine.
    fn eq(&self, other: &Timer) -> bool {
        self.id == other.id && Arc::ptr_eq(&self.inner, &other.inner)
    }
}

impl Eq for Timer {}

impl Timer {
    #[inline]
    pub(crate) fn made(inner: &Arc<Inner>, id: u64) -> Timer {
        Timer {
            inner: Arc::clone(inner),
            id,
        }
    }

    /// This timer's id, as events name it.
    pub fn id(&self) -> TimerId {
        TimerId(self.id)
    }

    #[inline]
    fn call(&self, status: c_int, name: &str) -> Result<c_int> {
        check(status, name)
    }

    fn double(
        &self,
        name: &str,
        f: unsafe extern "C" fn(*mut sys::tocsin_engine, u64, *mut f64) -> c_int,
    ) -> Result<f64> {
        let mut out = 0.0;
        // SAFETY: f is one of the library's getters taking (engine, timer,
        // out); ptr is valid while self.inner lives; out a valid out-pointer.
        self.call(unsafe { f(self.inner.ptr, self.id, &mut out) }, name)?;
        Ok(out)
    }

    // -- state changes ------------------------------------------------------

    /// Starts (or restarts) from the full duration: IDLE, FINISHED or
    /// CANCELED -> RUNNING (elapsed 0, laps cleared). Errors:
    /// [`Error::WrongState`] while it runs or is paused.
    #[inline]
    pub fn start(&self) -> Result<&Timer> {
        // SAFETY: ptr valid while self.inner lives; any id is checked by the library.
        let status = unsafe { sys::tocsin_timer_start(self.inner.ptr, self.id) };
        if status < 0 {
            return Err(self.explained(status, "start"));
        }
        Ok(self)
    }

    /// Holds the time exactly where it is: RUNNING -> SUSPENDED.
    pub fn suspend(&self) -> Result<&Timer> {
        // SAFETY: as in start.
        let status = unsafe { sys::tocsin_timer_suspend(self.inner.ptr, self.id) };
        if status < 0 {
            return Err(self.explained(status, "suspend"));
        }
        Ok(self)
    }

    /// Carries on from the time held: SUSPENDED -> RUNNING.
    pub fn resume(&self) -> Result<&Timer> {
        // SAFETY: as in start.
        let status = unsafe { sys::tocsin_timer_resume(self.inner.ptr, self.id) };
        if status < 0 {
            return Err(self.explained(status, "resume"));
        }
        Ok(self)
    }

    /// Cancels a running or suspended timer: RUNNING, SUSPENDED -> CANCELED.
    /// When it returns no TICK or FINISH of the run will come (from another
    /// thread it waits for a running closure of this timer to return).
    pub fn cancel(&self) -> Result<&Timer> {
        // SAFETY: as in start.
        let status = unsafe { sys::tocsin_timer_cancel(self.inner.ptr, self.id) };
        if status < 0 {
            return Err(self.explained(status, "cancel"));
        }
        Ok(self)
    }

    /// The error of a state change, in words that name the timer and its state.
    fn explained(&self, status: c_int, call: &str) -> Error {
        if status != sys::TOCSIN_ESTATE {
            return Error::new(status, call, None);
        }
        let (name, state) = match (self.label(), self.state()) {
            (Ok(label), Ok(state)) => (
                if label.is_empty() {
                    "this timer".to_string()
                } else {
                    label
                },
                state,
            ),
            _ => return Error::new(status, call, None),
        };
        let rule = match call {
            "start" => "only an idle, finished or cancelled timer can be started (cancel it first)",
            "suspend" => "only a running timer can be paused",
            "resume" => "only a paused timer can be resumed",
            "cancel" => "only a running or paused timer can be cancelled",
            "lap" => "laps are taken while it runs or is paused",
            _ => "not allowed now",
        };
        Error::new(status, call, Some(&format!("{name} {}: {rule}", state.words())))
    }

    /// Frees the timer now: its events not yet delivered are dropped, its
    /// closure is dropped, and every handle of it gives
    /// [`Error::NoSuchTimer`] from now on (freeing again too). When it
    /// returns (from anywhere but this timer's own closure) no closure of
    /// the timer is running or will run. Cost: O(1).
    pub fn free(&self) -> Result<()> {
        // SAFETY: as in start. Called without a lock of ours: it waits for
        // a running closure of this timer, which may take them.
        let status = unsafe { sys::tocsin_timer_free(self.inner.ptr, self.id) };
        check(status, "free")?;
        let closure = lock(&self.inner.handlers).remove(&self.id);
        drop(closure); // outside the lock
        Ok(())
    }

    /// Changes a countdown's or alarm's duration by `seconds` (negative
    /// shortens) for this run: the remaining time and the end move with it,
    /// exactly. Running and cut to its elapsed time or less, it finishes
    /// now (delivered the usual way); finished, a positive `seconds` runs
    /// it again with that much left ("one more minute"). Errors:
    /// [`Error::InvalidArgument`] for NaN, zero, infinity, a stopwatch, a
    /// calendar alarm or a new duration of zero or less;
    /// [`Error::WrongState`] once cancelled.
    pub fn adjust<S: IntoSeconds>(&self, seconds: S) -> Result<&Timer> {
        let seconds = seconds.into_seconds();
        // SAFETY: as in start.
        let status = unsafe { sys::tocsin_timer_adjust(self.inner.ptr, self.id, seconds) };
        if status == sys::TOCSIN_EINVAL {
            let detail = format!(
                "seconds must be finite and not 0, the timer a countdown or an alarm, and the new duration above 0 \
                 (and above the elapsed time unless running), got {}",
                shown(seconds)
            );
            return Err(Error::new(status, "adjust", Some(&detail)));
        }
        check(status, "adjust")?;
        Ok(self)
    }

    /// Records a lap on a running or suspended timer and returns its length
    /// in seconds (the running time since the previous lap, or the start).
    pub fn lap(&self) -> Result<f64> {
        let mut out = 0.0;
        // SAFETY: as in start; out a valid out-pointer.
        let status = unsafe { sys::tocsin_timer_lap(self.inner.ptr, self.id, &mut out) };
        if status < 0 {
            return Err(self.explained(status, "lap"));
        }
        Ok(out)
    }

    /// The lap lengths of the current run in seconds, oldest first.
    pub fn laps(&self) -> Result<Vec<f64>> {
        let mut laps: Vec<f64> = Vec::new();
        loop {
            // SAFETY: laps has room for laps.len() values (NULL allowed for 0).
            let status = unsafe { sys::tocsin_timer_laps(self.inner.ptr, self.id, laps.as_mut_ptr(), laps.len()) };
            let count = check(status, "laps")? as usize;
            if count <= laps.len() {
                laps.truncate(count);
                return Ok(laps);
            }
            laps = vec![0.0; count];
        }
    }

    // -- queries --------------------------------------------------------------

    /// The timer's state.
    pub fn state(&self) -> Result<State> {
        // SAFETY: as in start.
        let status = check(unsafe { sys::tocsin_timer_state(self.inner.ptr, self.id) }, "state")?;
        State::from_c(status).ok_or_else(|| Error::Unknown(status, format!("state: unknown state {status}")))
    }

    /// Seconds of running time in the current run (suspended time
    /// excluded), exact to the nanosecond.
    pub fn elapsed(&self) -> Result<f64> {
        self.double("elapsed", sys::tocsin_timer_elapsed)
    }

    /// Seconds left: the full duration when idle, 0 once finished, never
    /// negative; `None` for a stopwatch.
    pub fn remaining(&self) -> Result<Option<f64>> {
        let value = self.double("remaining", sys::tocsin_timer_remaining)?;
        Ok(if value < 0.0 { None } else { Some(value) })
    }

    /// A countdown's duration in seconds (as adjusted for this run); `None`
    /// for a stopwatch.
    pub fn duration(&self) -> Result<Option<f64>> {
        let value = self.double("duration", sys::tocsin_timer_duration)?;
        Ok(if value < 0.0 { None } else { Some(value) })
    }

    /// The label ("" if none).
    pub fn label(&self) -> Result<String> {
        let (ptr, id) = (self.inner.ptr, self.id);
        // SAFETY: ptr valid; buf/cap describe a writable buffer (or NULL, 0).
        read_string("label", |buf, cap| unsafe {
            sys::tocsin_timer_label(ptr, id, buf, cap)
        })
    }

    /// Sets the label ("" for none), copied by the engine. Errors:
    /// [`Error::InvalidArgument`] for one over 4096 bytes or with a NUL byte.
    pub fn set_label(&self, label: &str) -> Result<&Timer> {
        let text = c_string(label, "set_label", "label")?;
        // SAFETY: text is NUL-terminated and outlives the call.
        let status = unsafe { sys::tocsin_timer_set_label(self.inner.ptr, self.id, text.as_ptr()) };
        if status == sys::TOCSIN_EINVAL {
            let detail = format!("a label is at most 4096 bytes of UTF-8, got {} bytes", label.len());
            return Err(Error::new(status, "set_label", Some(&detail)));
        }
        check(status, "set_label")?;
        Ok(self)
    }

    /// Ticks every `seconds` of running time (0: none): tick k is due at k x
    /// interval; one at or after a countdown's end is folded into its FINISH.
    pub fn set_tick<S: IntoSeconds>(&self, seconds: S) -> Result<&Timer> {
        let seconds = seconds.into_seconds();
        // SAFETY: as in start.
        let status = unsafe { sys::tocsin_timer_set_tick(self.inner.ptr, self.id, seconds) };
        if status == sys::TOCSIN_EINVAL {
            let detail = format!(
                "an interval must be finite, at least 0 and at most 3155760000, got {}",
                shown(seconds)
            );
            return Err(Error::new(status, "set_tick", Some(&detail)));
        }
        check(status, "set_tick")?;
        Ok(self)
    }

    /// What happens to ticks all due at once (see [`TickPolicy`]). Any
    /// state; kept across runs and saved.
    pub fn set_tick_policy(&self, policy: TickPolicy) -> Result<&Timer> {
        let policy = match policy {
            TickPolicy::Every => sys::TOCSIN_TICKS_EVERY,
            TickPolicy::Coalesce => sys::TOCSIN_TICKS_COALESCE,
        };
        // SAFETY: as in start.
        let status = unsafe { sys::tocsin_timer_set_tick_policy(self.inner.ptr, self.id, policy) };
        check(status, "set_tick_policy")?;
        Ok(self)
    }

    /// Lets the timer's ticks and FINISH come up to `seconds` late (at most
    /// a day), so that timers due close together fire in one wake-up. Never
    /// early. 0 (the default): exactly at the deadline.
    pub fn set_leeway<S: IntoSeconds>(&self, seconds: S) -> Result<&Timer> {
        let seconds = seconds.into_seconds();
        // SAFETY: as in start.
        let status = unsafe { sys::tocsin_timer_set_leeway(self.inner.ptr, self.id, seconds) };
        if status == sys::TOCSIN_EINVAL {
            let detail = format!(
                "a leeway must be finite, at least 0 and at most 86400, got {}",
                shown(seconds)
            );
            return Err(Error::new(status, "set_leeway", Some(&detail)));
        }
        check(status, "set_leeway")?;
        Ok(self)
    }

    /// The leeway in seconds (0 if none).
    pub fn leeway(&self) -> Result<f64> {
        self.double("leeway", sys::tocsin_timer_leeway)
    }

    /// Puts an idle countdown or stopwatch on a clock: [`Clock::Boot`] (the
    /// default) or [`Clock::Awake`]. Errors: [`Error::WrongState`] unless
    /// idle; [`Error::InvalidArgument`] for [`Clock::Wall`] (make an alarm)
    /// and for `Awake` on an alarm.
    pub fn set_clock(&self, clock: Clock) -> Result<&Timer> {
        let value = match clock {
            Clock::Boot => sys::TOCSIN_CLOCK_BOOT,
            Clock::Awake => sys::TOCSIN_CLOCK_AWAKE,
            Clock::Wall => {
                let detail = "only alarms count the wall clock: make one with Engine::alarm or Engine::calendar";
                return Err(Error::new(sys::TOCSIN_EINVAL, "set_clock", Some(detail)));
            }
        };
        // SAFETY: as in start.
        let status = unsafe { sys::tocsin_timer_set_clock(self.inner.ptr, self.id, value) };
        if status == sys::TOCSIN_EINVAL {
            return Err(Error::new(
                status,
                "set_clock",
                Some("an alarm counts the wall clock; it cannot be Awake"),
            ));
        }
        check(status, "set_clock")?;
        Ok(self)
    }

    /// The clock the timer counts: [`Clock::Wall`] for alarms and calendar
    /// alarms, else [`Clock::Boot`] or [`Clock::Awake`].
    pub fn clock(&self) -> Result<Clock> {
        let mut when = 0.0;
        // SAFETY: as in start; when a valid out-pointer.
        let alarm = unsafe { sys::tocsin_timer_alarm_time(self.inner.ptr, self.id, &mut when) };
        if alarm == sys::TOCSIN_OK {
            return Ok(Clock::Wall);
        }
        // SAFETY: as in start.
        let value = check(unsafe { sys::tocsin_timer_clock(self.inner.ptr, self.id) }, "clock")?;
        Ok(if value == sys::TOCSIN_CLOCK_AWAKE {
            Clock::Awake
        } else {
            Clock::Boot
        })
    }

    /// Makes a countdown, alarm or calendar alarm wake a suspended machine
    /// (`true`) or not. Ok even where the process cannot (see
    /// [`Engine::can_wake`](crate::Engine::can_wake)); saved with the timer.
    pub fn set_wake(&self, wake: bool) -> Result<&Timer> {
        // SAFETY: as in start.
        let status = unsafe { sys::tocsin_timer_set_wake(self.inner.ptr, self.id, c_int::from(wake)) };
        if status == sys::TOCSIN_EINVAL {
            return Err(Error::new(
                status,
                "set_wake",
                Some("a stopwatch or an Awake timer cannot wake the machine"),
            ));
        }
        check(status, "set_wake")?;
        Ok(self)
    }

    /// Whether the timer wakes the machine.
    pub fn wake(&self) -> Result<bool> {
        // SAFETY: as in start.
        Ok(check(unsafe { sys::tocsin_timer_wake(self.inner.ptr, self.id) }, "wake")? == 1)
    }

    /// An alarm's (or calendar alarm's coming) wall-clock time, in seconds
    /// since 1970. Errors: [`Error::InvalidArgument`] for other timers.
    pub fn alarm_time(&self) -> Result<f64> {
        self.double("alarm_time", sys::tocsin_timer_alarm_time)
    }

    /// A calendar alarm's spec, normalized as systemd prints it
    /// (`"Mon..Fri *-*-* 07:00:00"`).
    pub fn calendar_spec(&self) -> Result<String> {
        let (ptr, id) = (self.inner.ptr, self.id);
        // SAFETY: ptr valid; buf/cap a writable buffer (or NULL, 0).
        read_string("calendar_spec", |buf, cap| unsafe {
            sys::tocsin_timer_calendar(ptr, id, buf, cap)
        })
    }

    /// Skips a calendar alarm's next `count` rings (0 undoes a skip), in any
    /// state but finished. Errors: [`Error::InvalidArgument`] for another
    /// kind of timer or a count over 100000, [`Error::NoOccurrence`].
    pub fn skip(&self, count: u32) -> Result<&Timer> {
        // SAFETY: as in start.
        let status = unsafe { sys::tocsin_calendar_skip(self.inner.ptr, self.id, count) };
        check(status, "skip")?;
        Ok(self)
    }

    /// Skips every ring of a calendar alarm before `when` (a wall-clock
    /// time after now), in place of any skip before.
    pub fn skip_until<T: IntoUnixTime>(&self, when: T) -> Result<&Timer> {
        let when = when.into_unix_seconds();
        // SAFETY: as in start.
        let status = unsafe { sys::tocsin_calendar_skip_until(self.inner.ptr, self.id, when) };
        if status == sys::TOCSIN_EINVAL {
            let detail = format!("the time must be after the wall clock now, got {}", shown(when));
            return Err(Error::new(status, "skip_until", Some(&detail)));
        }
        check(status, "skip_until")?;
        Ok(self)
    }

    /// The wall-clock time before which a calendar alarm's rings are
    /// skipped (after `skip(n)`: the first ring not skipped), or `None` if
    /// none are; a skip whose time has passed is none.
    pub fn skipped_until(&self) -> Result<Option<f64>> {
        let mut out = 0.0;
        // SAFETY: as in start; out a valid out-pointer.
        let status = unsafe { sys::tocsin_calendar_skipped_until(self.inner.ptr, self.id, &mut out) };
        let status = check(status, "skipped_until")?;
        Ok(if status == 1 { Some(out) } else { None })
    }

    #[cfg(any(feature = "tokio", feature = "notify"))]
    pub(crate) fn inner(&self) -> &Arc<Inner> {
        &self.inner
    }

    /// The id for other tocsin-sys calls.
    pub fn as_raw(&self) -> sys::tocsin_timer {
        self.id
    }
}
