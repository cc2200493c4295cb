//! [`Engine`] and its two other modes, [`PolledEngine`] and [`ManualEngine`];
//! the C callbacks that run the closures.
//!
//! What threads share (every field of `Inner`):
//!
//! | field         | written by                     | under            | why enough |
//! |---------------|--------------------------------|------------------|------------|
//! | `ptr`         | `Inner::new` only              | -                | set once; the C engine is thread-safe (tocsin.h, THREADS) and lives until `Inner` drops |
//! | `handlers`    | `on_event`, `free`, `after`, close | `handlers` mutex | the C callback clones the handler's `Arc` under it and calls it after unlocking it |
//! | `subscribers` | `subscribe`, `Events`' drop, close | `subscribers` mutex | the C observer sends under it; no closure runs under it; C calls that wait for callbacks are made after unlocking |
//!
//! No lock of this crate is held while a closure runs, nor while a C call
//! that may wait for a running callback is made (`tocsin_timer_free`,
//! `tocsin_engine_close`, `tocsin_engine_remove_observer`), so callbacks may
//! call anything.

use std::collections::HashMap;
use std::ffi::CString;
use std::ops::Deref;
use std::os::raw::{c_int, c_void};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::io::{AsFd, AsRawFd, BorrowedFd, RawFd};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use tocsin_sys as sys;

use crate::error::{check, Error, Result};
use crate::values::{shown, Event, EventKind, IntoSeconds, IntoUnixTime, TimerId};
use crate::Timer;

/// Locks a mutex of this crate; a panic in a closure never poisons one
/// (closures run outside them), so a poisoned lock's data is still whole.
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> Locked<'_, T> {
    let guard = mutex.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    #[cfg(tocsin_tsan)]
    // SAFETY: an annotation of ThreadSanitizer's runtime, given an address.
    unsafe {
        __tsan_acquire(mutex as *const Mutex<T> as *mut c_void)
    };
    Locked {
        guard,
        #[cfg(tocsin_tsan)]
        address: mutex as *const Mutex<T> as *mut c_void,
    }
}

/// A held lock of this crate. Under ThreadSanitizer (`--cfg tocsin_tsan`,
/// scripts/test-rust.sh) it tells TSan of the acquire and release: the
/// standard library is not instrumented there (no `-Zbuild-std` without
/// rust-src), so TSan cannot see std's `Mutex` by itself.
pub(crate) struct Locked<'a, T> {
    guard: MutexGuard<'a, T>,
    #[cfg(tocsin_tsan)]
    address: *mut c_void,
}

impl<T> Deref for Locked<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.guard
    }
}

impl<T> std::ops::DerefMut for Locked<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.guard
    }
}

#[cfg(tocsin_tsan)]
impl<T> Drop for Locked<'_, T> {
    fn drop(&mut self) {
        // SAFETY: an annotation, before the guard (a field) unlocks.
        unsafe { __tsan_release(self.address) };
    }
}

#[cfg(tocsin_tsan)]
extern "C" {
    fn __tsan_acquire(address: *mut c_void);
    fn __tsan_release(address: *mut c_void);
}

/// A closure of [`Timer::on_event`].
type EachFn = Box<dyn FnMut(&Event) + Send>;
/// A closure of [`Engine::after`].
type OnceFn = Box<dyn FnOnce(&Event) + Send>;

/// A timer's closure.
pub(crate) enum Handler {
    /// [`Timer::on_event`]: called for every event its mask lets through.
    Each(Mutex<EachFn>),
    /// [`Engine::after`]: called once, at FINISH; then the timer is freed.
    Once(Mutex<Option<OnceFn>>),
}

/// Where the engine's observer sends events.
pub(crate) enum Sink {
    Std(Sender<Event>),
    #[cfg(feature = "tokio")]
    Tokio(tokio::sync::mpsc::UnboundedSender<Event>),
}

pub(crate) struct Subscriber {
    key: u64,
    timer: Option<TimerId>,
    sink: Sink,
}

#[derive(Default)]
pub(crate) struct Subscribers {
    /// The C observer's id while there are subscribers, else 0.
    observer: u64,
    next_key: u64,
    list: Vec<Subscriber>,
}

/// What the engine, its timers and its C callbacks share. Its address is
/// the `user_data` of every C callback.
pub(crate) struct Inner {
    pub(crate) ptr: *mut sys::tocsin_engine,
    pub(crate) mode: Mode,
    pub(crate) handlers: Mutex<HashMap<u64, Arc<Handler>>>,
    pub(crate) subscribers: Mutex<Subscribers>,
}

// SAFETY: `ptr` is a tocsin engine, which every thread may call (tocsin.h,
// THREADS) until tocsin_engine_free, which only Inner's Drop calls; the
// other fields are behind mutexes and hold only Send values.
unsafe impl Send for Inner {}
// SAFETY: as for Send: every shared access goes through the C library's
// lock or one of the mutexes.
unsafe impl Sync for Inner {}

/// The engine's delivery mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Closures run on the engine's own thread ([`Engine::new`]).
    Thread,
    /// Closures run inside [`PolledEngine::dispatch`].
    Polled,
    /// Closures run inside [`ManualEngine::advance`] and its kin.
    ManualClock,
}

impl Inner {
    fn new(mode: Mode) -> Result<Arc<Inner>> {
        let flags = match mode {
            Mode::Thread => sys::TOCSIN_ENGINE_DEFAULT,
            Mode::Polled => sys::TOCSIN_ENGINE_POLLED,
            Mode::ManualClock => sys::TOCSIN_ENGINE_MANUAL_CLOCK,
        };
        let mut ptr = std::ptr::null_mut();
        // SAFETY: `ptr` is a valid out-pointer; on success we own the engine
        // and free it once, in Inner's Drop.
        check(unsafe { sys::tocsin_engine_new(flags, &mut ptr) }, "Engine::new")?;
        Ok(Arc::new(Inner {
            ptr,
            mode,
            handlers: Mutex::new(HashMap::new()),
            subscribers: Mutex::default(),
        }))
    }

    /// The `user_data` of this engine's C callbacks.
    pub(crate) fn user_data(self: &Arc<Self>) -> *mut c_void {
        Arc::as_ptr(self) as *mut c_void
    }

    /// Stops delivery and frees every timer (tocsin_engine_close), then
    /// drops the closures and ends every [`Events`]. Closing again does nothing.
    fn close(&self) {
        // SAFETY: ptr is valid until Inner drops; closing twice is a no-op.
        // Called without a lock of ours: it waits for a running callback.
        unsafe { sys::tocsin_engine_close(self.ptr) };
        let handlers = std::mem::take(&mut *lock(&self.handlers));
        let subscribers = std::mem::take(&mut lock(&self.subscribers).list);
        drop((handlers, subscribers)); // closures dropped outside the locks
    }

    /// Adds a subscriber (all timers, or one) and the C observer if it is
    /// the first; returns its key for `unsubscribe`.
    pub(crate) fn subscribe(self: &Arc<Self>, timer: Option<TimerId>, sink: Sink) -> Result<u64> {
        let mut subscribers = lock(&self.subscribers);
        if subscribers.observer == 0 {
            let mut id = 0;
            // SAFETY: observe() reads user_data as this Inner, which outlives
            // the C engine; `id` is a valid out-pointer. add_observer does not
            // wait for callbacks, so holding our lock is safe.
            let status = unsafe { sys::tocsin_engine_add_observer(self.ptr, Some(observe), self.user_data(), &mut id) };
            check(status, "Engine::events")?;
            subscribers.observer = id;
        }
        subscribers.next_key += 1;
        let key = subscribers.next_key;
        subscribers.list.push(Subscriber { key, timer, sink });
        Ok(key)
    }

    /// Removes a subscriber, and the C observer with the last one.
    pub(crate) fn unsubscribe(&self, key: u64) {
        let (observer, gone) = {
            let mut subscribers = lock(&self.subscribers);
            let gone = subscribers
                .list
                .iter()
                .position(|s| s.key == key)
                .map(|at| subscribers.list.remove(at));
            let observer = if subscribers.list.is_empty() {
                std::mem::take(&mut subscribers.observer)
            } else {
                0
            };
            (observer, gone)
        };
        drop(gone);
        if observer != 0 {
            // SAFETY: ptr is valid; called without our lock, as it may wait
            // for the observer to return. ECLOSED after a close is harmless.
            unsafe { sys::tocsin_engine_remove_observer(self.ptr, observer) };
        }
    }

    pub(crate) fn is_closed(&self) -> bool {
        let mut out = 0.0;
        // SAFETY: ptr valid, out a valid out-pointer.
        unsafe { sys::tocsin_engine_now(self.ptr, &mut out) == sys::TOCSIN_ECLOSED }
    }
}

impl Drop for Inner {
    fn drop(&mut self) {
        // SAFETY: the last reference: nothing of this crate uses ptr after
        // this. From inside one of its callbacks (a closure that held the
        // last Timer) the library defers the teardown until it returns.
        unsafe { sys::tocsin_engine_free(self.ptr) };
    }
}

/// Takes a counted reference to the Inner behind `user_data` for the
/// length of a callback, so that a closure dropping the last handle does
/// not free it under the callback's feet.
///
/// # Safety
/// `user_data` must be `Inner::user_data()` of an engine whose callback is
/// running: then its owner ([`Engine`], which closes the engine and waits
/// for running callbacks before it lets its reference go) still holds one,
/// so the count is above zero.
unsafe fn hold(user_data: *mut c_void) -> Arc<Inner> {
    let inner = user_data as *const Inner;
    // SAFETY: by this function's contract the count is at least 1.
    unsafe {
        Arc::increment_strong_count(inner);
        Arc::from_raw(inner)
    }
}

/// The C callback of every timer with a closure.
pub(crate) unsafe extern "C" fn deliver(
    engine: *mut sys::tocsin_engine,
    event: *const sys::tocsin_event,
    user_data: *mut c_void,
) {
    // SAFETY: the library calls this with the user_data given with it
    // (Inner::user_data) while the engine is open, and an event pointer
    // valid for the call.
    let (inner, event) = unsafe { (hold(user_data), &*event) };
    let event = match Event::from_c(event) {
        Some(event) => event,
        None => return,
    };
    let handler = match lock(&inner.handlers).get(&event.timer.0).cloned() {
        Some(handler) => handler,
        None => return,
    };
    // A panicking closure must not unwind into C: it is caught here (the
    // panic hook has printed it) and delivery carries on.
    let _ = catch_unwind(AssertUnwindSafe(|| match &*handler {
        Handler::Each(closure) => (lock(closure))(&event),
        Handler::Once(closure) => {
            if event.kind == EventKind::Finish {
                if let Some(closure) = lock(closure).take() {
                    closure(&event);
                }
            }
        }
    }));
    if let Handler::Once(_) = &*handler {
        if event.kind == EventKind::Finish {
            drop(lock(&inner.handlers).remove(&event.timer.0));
            // SAFETY: engine is this callback's engine; freeing a timer from
            // its own callback is allowed (tocsin.h, tocsin_timer_free).
            unsafe { sys::tocsin_timer_free(engine, event.timer.0) };
        }
    }
    drop(handler);
    drop(inner); // may free the engine: allowed from inside its callback
}

/// The C observer: hands every event to the subscribers.
unsafe extern "C" fn observe(
    _engine: *mut sys::tocsin_engine,
    event: *const sys::tocsin_event,
    user_data: *mut c_void,
) {
    // SAFETY: as in deliver().
    let (inner, event) = unsafe { (hold(user_data), &*event) };
    let event = match Event::from_c(event) {
        Some(event) => event,
        None => return,
    };
    lock(&inner.subscribers).list.retain(|subscriber| {
        if subscriber.timer.map_or(false, |timer| timer != event.timer) {
            return true;
        }
        match &subscriber.sink {
            Sink::Std(sender) => sender.send(event).is_ok(),
            #[cfg(feature = "tokio")]
            Sink::Tokio(sender) => sender.send(event).is_ok(),
        }
    });
}

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

/// An engine whose closures run inside [`dispatch`](PolledEngine::dispatch),
/// on the thread that calls it, when its fd ([`AsFd`], [`AsRawFd`]) is
/// readable: for programs with an event loop of their own (`poll(2)`,
/// epoll, mio, GLib; the `tokio` feature's `AsyncEngine` is one). The fd is
/// readable while events wait, never before one is due; it may turn
/// readable once more with nothing to deliver (then `dispatch` returns 0).
/// It belongs to the engine: do not read, write or close it.
///
/// Dereferences to [`Engine`] for everything else. Closures are
/// `Send + 'static` in every mode, as the engine may be dispatched from any
/// thread.
///
/// ```
/// use std::os::unix::io::AsRawFd;
/// let engine = tocsin::Engine::polled()?;
/// let timer = engine.countdown(0.02)?;
/// timer.start()?;
/// let mut fds = [libc_pollfd { fd: engine.as_raw_fd(), events: 1 /* POLLIN */, revents: 0 }];
/// while timer.state()? != tocsin::State::Finished {
///     // SAFETY: one valid pollfd.
///     unsafe { poll(fds.as_mut_ptr(), 1, -1) };
///     engine.dispatch()?;
/// }
/// # #[repr(C)] struct libc_pollfd { fd: i32, events: i16, revents: i16 }
/// # extern "C" { fn poll(fds: *mut libc_pollfd, n: u64, timeout: i32) -> i32; }
/// # Ok::<(), tocsin::Error>(())
/// ```
#[derive(Debug)]
pub struct PolledEngine {
    engine: Engine,
    fd: RawFd,
}

impl PolledEngine {
    /// A new polled engine (as [`Engine::polled`]).
    pub fn new() -> Result<PolledEngine> {
        Engine::polled()
    }

    /// Delivers, on this thread, the events that were waiting when it was
    /// called (at most about 4096 ticks one by one: it returns after bounded
    /// work, and the fd stays readable if more is due). Returns how many
    /// closures and observers it called. Errors: [`Error::WrongState`] from
    /// inside a closure. Calls from several threads are served one after another.
    pub fn dispatch(&self) -> Result<usize> {
        // SAFETY: ptr valid while self lives.
        let status = unsafe { sys::tocsin_engine_dispatch(self.engine.inner.ptr) };
        check(status, "dispatch").map(|n| n as usize)
    }

    /// Waits up to `timeout` (None: for ever) for the fd to turn readable,
    /// then dispatches. Returns how many closures it called (0 if the time
    /// ran out).
    pub fn wait_and_dispatch(&self, timeout: Option<Duration>) -> Result<usize> {
        if poll_readable(self.as_raw_fd(), timeout) {
            self.dispatch()
        } else {
            Ok(0)
        }
    }

    /// Every event of every timer as an iterator that drives the engine:
    /// `next()` returns a queued event, else waits on the fd and dispatches
    /// until one comes; `None` once the engine is closed.
    pub fn events(&self) -> Result<Events> {
        Events::new(&self.engine.inner, None)
    }
}

impl Deref for PolledEngine {
    type Target = Engine;
    fn deref(&self) -> &Engine {
        &self.engine
    }
}

impl AsRawFd for PolledEngine {
    fn as_raw_fd(&self) -> RawFd {
        self.fd
    }
}

impl AsFd for PolledEngine {
    fn as_fd(&self) -> BorrowedFd<'_> {
        // SAFETY: the engine owns the fd and closes it only when it is
        // closed, which only dropping the PolledEngine does (no method of
        // this crate closes an engine otherwise): the borrow of self keeps
        // it open for the BorrowedFd's lifetime.
        unsafe { BorrowedFd::borrow_raw(self.fd) }
    }
}

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
pub struct ManualEngine(Engine);

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

/// How [`Events::next`] waits.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Wait {
    /// On the channel (the engine's thread sends).
    Block,
    /// On the polled engine's fd, dispatching.
    Poll(RawFd),
    /// Not at all (a manual clock).
    Never,
}

/// Events of an engine (or of one timer: [`Timer::events`]) as an iterator;
/// see [`Engine::events`], [`PolledEngine::events`], [`ManualEngine::events`]
/// for how `next()` waits in each mode. `Send`: it may be read on another
/// thread. Dropping it stops the queueing.
pub struct Events {
    inner: Arc<Inner>,
    key: u64,
    receiver: Receiver<Event>,
    wait: Wait,
}

impl std::fmt::Debug for Events {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Events")
            .field("wait", &self.wait)
            .finish_non_exhaustive()
    }
}

impl Events {
    pub(crate) fn new(inner: &Arc<Inner>, timer: Option<TimerId>) -> Result<Events> {
        let (sender, receiver) = mpsc::channel();
        let key = inner.subscribe(timer, Sink::Std(sender))?;
        let wait = match inner.mode {
            Mode::Thread => Wait::Block,
            Mode::ManualClock => Wait::Never,
            // SAFETY: ptr valid (ECLOSED, negative, once closed: never polled).
            Mode::Polled => Wait::Poll(unsafe { sys::tocsin_engine_fd(inner.ptr) }),
        };
        Ok(Events {
            inner: Arc::clone(inner),
            key,
            receiver,
            wait,
        })
    }

    /// The next event if one is queued now, without waiting.
    pub fn try_next(&mut self) -> Option<Event> {
        self.receiver.try_recv().ok()
    }

    /// The next event, waiting at most `timeout` (on a polled engine:
    /// dispatching meanwhile). `None` if none came in time.
    pub fn next_timeout(&mut self, timeout: Duration) -> Option<Event> {
        match self.wait {
            Wait::Block => match self.receiver.recv_timeout(timeout) {
                Ok(event) => Some(event),
                Err(RecvTimeoutError::Timeout) | Err(RecvTimeoutError::Disconnected) => None,
            },
            Wait::Never => self.try_next(),
            Wait::Poll(fd) => {
                let end = std::time::Instant::now() + timeout;
                loop {
                    if let Some(event) = self.try_next() {
                        return Some(event);
                    }
                    let left = end.saturating_duration_since(std::time::Instant::now());
                    if left.is_zero() || !self.poll_once(fd, Some(left)) {
                        return self.try_next();
                    }
                }
            }
        }
    }

    /// Waits on the fd (up to `timeout`) and dispatches; false once the
    /// engine is closed.
    fn poll_once(&self, fd: RawFd, timeout: Option<Duration>) -> bool {
        if self.inner.is_closed() {
            return false;
        }
        if poll_readable(fd, timeout) {
            // SAFETY: ptr valid while self.inner lives.
            let status = unsafe { sys::tocsin_engine_dispatch(self.inner.ptr) };
            status >= 0
        } else {
            !self.inner.is_closed()
        }
    }
}

impl Iterator for Events {
    type Item = Event;

    fn next(&mut self) -> Option<Event> {
        match self.wait {
            Wait::Block => self.receiver.recv().ok(),
            Wait::Never => self.try_next(),
            Wait::Poll(fd) => loop {
                if let Some(event) = self.try_next() {
                    return Some(event);
                }
                // In slices: an engine dropped on another thread meanwhile
                // closes its fd, whose number may then be reused.
                if !self.poll_once(fd, Some(Duration::from_millis(100))) {
                    return self.try_next();
                }
            },
        }
    }
}

impl Drop for Events {
    fn drop(&mut self) {
        self.inner.unsubscribe(self.key);
    }
}

#[repr(C)]
struct PollFd {
    fd: c_int,
    events: i16,
    revents: i16,
}

extern "C" {
    // poll(2) from the C library std links already (no libc crate).
    fn poll(fds: *mut PollFd, count: std::os::raw::c_ulong, timeout: c_int) -> c_int;
}

/// Whether `fd` turns readable within `timeout` (None: waits for ever).
/// False at once for a negative fd.
pub(crate) fn poll_readable(fd: RawFd, timeout: Option<Duration>) -> bool {
    if fd < 0 {
        return false;
    }
    let milliseconds = match timeout {
        None => -1,
        Some(timeout) => timeout.as_millis().min(i32::MAX as u128) as c_int,
    };
    let mut entry = PollFd {
        fd,
        events: 1,
        revents: 0,
    }; // POLLIN
    loop {
        // SAFETY: one valid pollfd, for the length of the call.
        let ready = unsafe { poll(&mut entry, 1, milliseconds) };
        if ready >= 0 {
            return ready > 0 && entry.revents & 1 != 0;
        }
        if std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted {
            return false;
        }
    }
}
