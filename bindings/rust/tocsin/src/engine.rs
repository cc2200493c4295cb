//! [`Engine`]: the engine whose closures run on its own thread, and what
//! every mode shares (dereferenced by [`PolledEngine`] and [`ManualEngine`]).

use std::ffi::CString;
use std::os::raw::c_int;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::sync::{Arc, Mutex};

use tocsin_sys as sys;

use crate::error::{check, Error, Result};
use crate::events::Events;
use crate::inner::{deliver, lock, Handler, Inner, Mode};
use crate::values::{shown, Event, IntoSeconds, IntoUnixTime, TimerId};
use crate::{ManualEngine, PolledEngine, Timer};

/// Many countdowns, stopwatches, alarms and calendar alarms on one kernel
/// timer, whose closures run on the engine's own thread.
///
/// Real-clock engines count `CLOCK_BOOTTIME`: time keeps running while the
/// machine sleeps, so a countdown ends at its real end across a suspend (at
/// the resume if its end passed meanwhile). All times are seconds, kept to
/// the nanosecond.
///
/// The other modes: [`PolledEngine`] (your event loop watches its fd and
/// calls [`dispatch`](PolledEngine::dispatch)) and [`ManualEngine`] (a
/// clock that moves only when told, for tests); both dereference to
/// `Engine` for everything else.
///
/// Thread-safety: `Engine` is `Send` and `Sync`; every method may be called
/// from any thread and from inside a closure. Dropping it closes the engine:
/// every timer is freed, no closure runs after the drop returns (from
/// another thread it waits for a running one), and handles still held give
/// [`Error::Closed`].
///
/// ```
/// let engine = tocsin::Engine::new()?;
/// let (done, finished) = std::sync::mpsc::channel();
/// engine.after(0.01, move |event| done.send(event.elapsed).unwrap())?;
/// assert_eq!(finished.recv().unwrap(), 0.01);
/// # Ok::<(), tocsin::Error>(())
/// ```
pub struct Engine {
    pub(crate) inner: Arc<Inner>,
}

impl Drop for Engine {
    fn drop(&mut self) {
        self.inner.close();
    }
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine")
            .field("mode", &self.inner.mode)
            .finish_non_exhaustive()
    }
}

impl Engine {
    /// An engine whose closures run on its own thread, one at a time, in
    /// due-time order. Errors: [`Error::Io`] if the kernel timer or the
    /// thread cannot be made.
    pub fn new() -> Result<Engine> {
        Ok(Engine {
            inner: Inner::new(Mode::Thread)?,
        })
    }

    /// A polled engine: see [`PolledEngine`].
    pub fn polled() -> Result<PolledEngine> {
        let engine = Engine {
            inner: Inner::new(Mode::Polled)?,
        };
        // SAFETY: ptr valid; a polled engine has its fd until it is closed.
        let fd = check(unsafe { sys::tocsin_engine_fd(engine.inner.ptr) }, "Engine::polled")?;
        Ok(PolledEngine { engine, fd })
    }

    /// An engine on a manual clock: see [`ManualEngine`].
    pub fn manual_clock() -> Result<ManualEngine> {
        Ok(ManualEngine(Engine {
            inner: Inner::new(Mode::ManualClock)?,
        }))
    }

    /// The delivery mode.
    pub fn mode(&self) -> Mode {
        self.inner.mode
    }

    /// The `tocsin_engine *` for calls of tocsin-sys. It stays valid while
    /// this `Engine` (or a [`Timer`] of it) lives; do not free or close it.
    pub fn as_ptr(&self) -> *mut sys::tocsin_engine {
        self.inner.ptr
    }

    /// A new idle countdown of `seconds` (above 0, at most 100 years).
    /// Errors: [`Error::InvalidArgument`] for NaN, zero, negative, infinite
    /// or too large seconds. Cost: O(1) amortized.
    pub fn countdown<S: IntoSeconds>(&self, seconds: S) -> Result<Timer> {
        let seconds = seconds.into_seconds();
        let mut id = 0;
        // SAFETY: ptr is valid while self lives; id is a valid out-pointer.
        let status = unsafe { sys::tocsin_countdown_new(self.inner.ptr, seconds, &mut id) };
        if status < 0 {
            return Err(seconds_error(status, "countdown", seconds));
        }
        Ok(Timer::made(&self.inner, id))
    }

    /// A new idle stopwatch: counts up from 0, never finishes.
    pub fn stopwatch(&self) -> Result<Timer> {
        let mut id = 0;
        // SAFETY: as in countdown.
        let status = unsafe { sys::tocsin_stopwatch_new(self.inner.ptr, &mut id) };
        check(status, "stopwatch")?;
        Ok(Timer::made(&self.inner, id))
    }

    /// A new idle alarm that finishes when the wall clock reaches `when`
    /// (seconds since 1970, or a `SystemTime`), following every change of
    /// the wall clock while it runs (set forward past its time, it finishes
    /// at once; set back, it rings later). Its [`remaining`](Timer::remaining)
    /// is the time until then. Errors: [`Error::InvalidArgument`] for NaN, a
    /// negative time or one past 100 years after 1970.
    pub fn alarm<T: IntoUnixTime>(&self, when: T) -> Result<Timer> {
        let when = when.into_unix_seconds();
        let mut id = 0;
        // SAFETY: as in countdown.
        let status = unsafe { sys::tocsin_alarm_new(self.inner.ptr, when, &mut id) };
        if status == sys::TOCSIN_EINVAL {
            let detail = format!(
                "the time must be finite, at least 0 and at most 3155760000, got {}",
                shown(when)
            );
            return Err(Error::new(status, "alarm", Some(&detail)));
        }
        check(status, "alarm")?;
        Ok(Timer::made(&self.inner, id))
    }

    /// A new idle calendar alarm: started, it rings at every occurrence of
    /// `spec` in systemd's calendar syntax (`"Mon..Fri 07:00"`,
    /// `"*-*-01 09:00 Europe/Berlin"`, `"*:0/15"`): a FINISH whose state is
    /// still [`Running`](crate::State::Running), `remaining` the time to the
    /// next occurrence and `missed` the occurrences passed over. Skip rings
    /// with [`Timer::skip`]. Errors: [`Error::InvalidArgument`] with the
    /// library's reason (`"column 10: 'Mun' is not a weekday, …"`),
    /// [`Error::NoOccurrence`] for a spec with none left.
    ///
    /// ```
    /// let engine = tocsin::Engine::manual_clock()?;
    /// engine.set_wall_clock(1_800_000_000.0)?; // 2027-01-15 08:00 UTC, a Friday
    /// let standup = engine.calendar("Mon..Fri 09:30 UTC")?;
    /// standup.start()?;
    /// assert_eq!(standup.alarm_time()?, 1_800_005_400.0);
    /// standup.skip(1)?; // not this Friday
    /// assert_eq!(standup.alarm_time()?, 1_800_005_400.0 + 3.0 * 86_400.0); // Monday
    /// assert!(engine.calendar("Mun 07:00").is_err());
    /// # Ok::<(), tocsin::Error>(())
    /// ```
    pub fn calendar(&self, spec: &str) -> Result<Timer> {
        let text = c_string(spec, "calendar", "spec")?;
        let mut id = 0;
        // SAFETY: text is NUL-terminated and outlives the call; id a valid out-pointer.
        let status = unsafe { sys::tocsin_calendar_new(self.inner.ptr, text.as_ptr(), &mut id) };
        if status == sys::TOCSIN_EINVAL {
            let reason = crate::calendar::reason(&text);
            return Err(Error::new(status, "calendar", Some(&format!("{spec:?}: {reason}"))));
        }
        if status == sys::TOCSIN_ERANGE {
            return Err(Error::new(
                status,
                "calendar",
                Some(&format!("{spec:?} has no occurrence after now")),
            ));
        }
        check(status, "calendar")?;
        Ok(Timer::made(&self.inner, id))
    }

    /// The one-shot in one call (as `g_timeout_add` or a thread that
    /// sleeps): starts a countdown of `seconds` whose FINISH calls `f`
    /// once, then frees the timer. Returns the running timer, which
    /// [`cancel`](Timer::cancel) stops (free it then: a cancelled one-shot
    /// stays until freed or the engine is dropped). Only its FINISH is
    /// queued: no STATE events are made for it unless [`events`](Engine::events)
    /// watches the engine.
    ///
    /// `f` runs where the engine's mode delivers: on the engine's thread
    /// for an [`Engine`], hence `Send + 'static`. In this mode it may run
    /// before `after` returns.
    pub fn after<S, F>(&self, seconds: S, f: F) -> Result<Timer>
    where
        S: IntoSeconds,
        F: FnOnce(&Event) + Send + 'static,
    {
        let seconds = seconds.into_seconds();
        let handler = Arc::new(Handler::Once(Mutex::new(Some(Box::new(f)))));
        let mut id = 0;
        // Under the handlers lock: a FINISH delivered on the engine's thread
        // before the C call returns waits for the closure's entry.
        let mut handlers = lock(&self.inner.handlers);
        // SAFETY: ptr valid; deliver() reads user_data as this Inner, which
        // outlives the C engine; id a valid out-pointer. countdown_start
        // never waits for a callback, so holding our lock is safe.
        let status = unsafe {
            sys::tocsin_countdown_start(
                self.inner.ptr,
                seconds,
                sys::TOCSIN_EVENTS_FINISH,
                Some(deliver),
                self.inner.user_data(),
                &mut id,
            )
        };
        if status < 0 {
            drop(handlers);
            return Err(seconds_error(status, "after", seconds));
        }
        handlers.insert(id, handler);
        drop(handlers);
        Ok(Timer::made(&self.inner, id))
    }

    /// A handle of the timer `id` (from an [`Event`]). It is not checked:
    /// an unknown id gives [`Error::NoSuchTimer`] at its first use.
    pub fn timer(&self, id: TimerId) -> Timer {
        Timer::made(&self.inner, id.0)
    }

    /// Every timer of the engine, in creation order. Cost: O(n log n).
    pub fn timers(&self) -> Result<Vec<Timer>> {
        let mut ids: Vec<u64> = Vec::new();
        loop {
            // SAFETY: ids has room for ids.len() handles (NULL allowed for 0).
            let status = unsafe { sys::tocsin_engine_timers(self.inner.ptr, ids.as_mut_ptr(), ids.len()) };
            let count = check(status, "timers")? as usize;
            if count <= ids.len() {
                ids.truncate(count);
                return Ok(ids.into_iter().map(|id| Timer::made(&self.inner, id)).collect());
            }
            ids = vec![0; count];
        }
    }

    /// The engine's clock in seconds: `CLOCK_BOOTTIME` on a real clock, the
    /// manual time (from 0) on a [`ManualEngine`].
    pub fn now(&self) -> Result<f64> {
        let mut out = 0.0;
        // SAFETY: ptr valid, out a valid out-pointer.
        check(unsafe { sys::tocsin_engine_now(self.inner.ptr, &mut out) }, "now")?;
        Ok(out)
    }

    /// The wall clock alarms follow, in seconds since 1970 (`CLOCK_REALTIME`;
    /// on a manual clock the simulated one, 0 until set).
    pub fn wall_clock(&self) -> Result<f64> {
        let mut out = 0.0;
        // SAFETY: as in now.
        let status = unsafe { sys::tocsin_engine_wall_clock(self.inner.ptr, &mut out) };
        check(status, "wall_clock")?;
        Ok(out)
    }

    /// Whether timers marked with [`Timer::set_wake`] can wake a suspended
    /// machine (needs `CAP_WAKE_ALARM` and a wake-capable clock); when not,
    /// [`wake_reason`](Engine::wake_reason) says why.
    pub fn can_wake(&self) -> Result<bool> {
        // SAFETY: ptr valid.
        Ok(check(unsafe { sys::tocsin_engine_can_wake(self.inner.ptr) }, "can_wake")? == 1)
    }

    /// Why this engine cannot wake the machine ("" when it can).
    pub fn wake_reason(&self) -> Result<String> {
        let inner = &self.inner;
        // SAFETY: ptr valid; buf/cap describe a writable buffer (or NULL, 0).
        read_string("wake_reason", |buf, cap| unsafe {
            sys::tocsin_engine_wake_reason(inner.ptr, buf, cap)
        })
    }

    /// Writes every timer to `path` atomically (a temporary file, fsync,
    /// rename; mode 0600); format in docs/timer-file.md. Errors:
    /// [`Error::Io`] with the errno's `io::Error` (the file is then as it
    /// was), [`Error::InvalidArgument`] for a path with a NUL byte.
    pub fn save<P: AsRef<Path>>(&self, path: P) -> Result<()> {
        let path = path.as_ref();
        let text = path_c_string(path, "save")?;
        // SAFETY: text is NUL-terminated and outlives the call.
        let status = unsafe { sys::tocsin_engine_save(self.inner.ptr, text.as_ptr()) };
        if status == sys::TOCSIN_EIO {
            return Err(Error::io("save", path, std::io::Error::last_os_error()));
        }
        check(status, "save").map(drop)
    }

    /// Adds the timers saved at `path` (under new ids) and returns them.
    /// Time away counts for the ones that were running; a countdown that ran
    /// out meanwhile comes back finished, and its FINISH is delivered (late)
    /// once a closure is set on it ([`Timer::on_event`]). Errors:
    /// [`Error::Io`] (a missing file: its `io::Error` is `NotFound`),
    /// [`Error::Corrupt`]; on any error the engine is as it was.
    pub fn load<P: AsRef<Path>>(&self, path: P) -> Result<Vec<Timer>> {
        let path = path.as_ref();
        let text = path_c_string(path, "load")?;
        let mut restored = 0usize;
        // SAFETY: text NUL-terminated; restored a valid out-pointer.
        let status = unsafe { sys::tocsin_engine_load(self.inner.ptr, text.as_ptr(), &mut restored) };
        if status == sys::TOCSIN_EIO {
            return Err(Error::io("load", path, std::io::Error::last_os_error()));
        }
        check(status, "load")?;
        let mut timers = self.timers()?;
        let first = timers.len().saturating_sub(restored);
        Ok(timers.split_off(first))
    }

    /// Every event of every timer, as a blocking iterator: on this engine
    /// `next()` waits until an event comes, and returns `None` once the
    /// engine is dropped. Events are queued from when this is called; the
    /// iterator (which may move to another thread) stops them when dropped.
    /// Cost: while it lives every event of every timer is queued for it.
    pub fn events(&self) -> Result<Events> {
        Events::new(&self.inner, None)
    }
}

/// The error of a call that took `seconds`.
pub(crate) fn seconds_error(status: c_int, call: &str, seconds: f64) -> Error {
    if status == sys::TOCSIN_EINVAL {
        let detail = format!(
            "seconds must be finite, above 0 and at most 3155760000, got {}",
            shown(seconds)
        );
        Error::new(status, call, Some(&detail))
    } else {
        Error::new(status, call, None)
    }
}

/// `text` as a C string, or InvalidArgument naming `what` if it holds a NUL.
pub(crate) fn c_string(text: &str, call: &str, what: &str) -> Result<CString> {
    CString::new(text).map_err(|nul| {
        let detail = format!("the {what} has a NUL byte at {}: {text:?}", nul.nul_position());
        Error::new(sys::TOCSIN_EINVAL, call, Some(&detail))
    })
}

fn path_c_string(path: &Path, call: &str) -> Result<CString> {
    CString::new(path.as_os_str().as_bytes()).map_err(|_| {
        let detail = format!("the path has a NUL byte: {}", path.display());
        Error::new(sys::TOCSIN_EINVAL, call, Some(&detail))
    })
}

/// A string the library copies as snprintf does: asks its length, then
/// reads it whole (again if it grew meanwhile).
pub(crate) fn read_string(
    call: &str,
    mut read: impl FnMut(*mut std::os::raw::c_char, usize) -> c_int,
) -> Result<String> {
    let mut buffer: Vec<u8> = Vec::new();
    loop {
        let length = check(
            read(buffer.as_mut_ptr() as *mut std::os::raw::c_char, buffer.len()),
            call,
        )? as usize;
        if length < buffer.len() {
            buffer.truncate(length);
            return Ok(String::from_utf8_lossy(&buffer).into_owned());
        }
        buffer = vec![0; length + 1];
    }
}
