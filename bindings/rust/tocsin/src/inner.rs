//! What an engine, its timers and its C callbacks share ([`Inner`]), the
//! crate's locks, and the C callbacks that run the closures.
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
use std::ops::Deref;
use std::os::raw::c_void;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::mpsc::Sender;
use std::sync::{Arc, Mutex, MutexGuard};

use tocsin_sys as sys;

use crate::error::{check, Result};
use crate::values::{Event, EventKind, TimerId};
#[cfg(doc)] // for the docs' links
use crate::{Engine, Events, ManualEngine, PolledEngine, Timer};

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

/// A closure of [`Timer::on_event`](crate::Timer::on_event).
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
    pub(crate) fn new(mode: Mode) -> Result<Arc<Inner>> {
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
    pub(crate) fn close(&self) {
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

/// What a C callback gets, as Rust: the engine's shared state and the
/// event (None for an event this crate does not know).
///
/// # Safety
/// As `hold` for `user_data`; `event` valid for the call.
unsafe fn incoming(user_data: *mut c_void, event: *const sys::tocsin_event) -> Option<(Arc<Inner>, Event)> {
    // SAFETY: by this function's contract.
    let (inner, event) = unsafe { (hold(user_data), &*event) };
    Some((inner, Event::from_c(event)?))
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
    let (inner, event) = match unsafe { incoming(user_data, event) } {
        Some(incoming) => incoming,
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
    let (inner, event) = match unsafe { incoming(user_data, event) } {
        Some(incoming) => incoming,
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
