//! [`PolledEngine`]: closures run inside `dispatch`, when the fd is readable.

use std::ops::Deref;
use std::os::unix::io::{AsFd, AsRawFd, BorrowedFd, RawFd};
use std::time::Duration;

use tocsin_sys as sys;

use crate::engine::Engine;
use crate::error::{check, Result};
use crate::events::{poll_readable, Events};
#[cfg(doc)] // for the docs' links
use crate::Error;

/// An engine whose closures run inside [`dispatch`](PolledEngine::dispatch),
/// on the thread that calls it, when its fd ([`AsFd`], [`AsRawFd`]) is
/// readable: for programs with an event loop of their own (`poll(2)`,
/// epoll, mio, GLib; the `tokio` feature's `AsyncEngine` is one). The fd is
/// readable while events wait, never before one is due; it may turn
/// readable once more with nothing to deliver (then `dispatch` returns 0).
/// A change of state is an event too: right after `start()` the fd is
/// readable with the STATE event, unless the timer's events are only
/// FINISH (`set_events`). It belongs to the engine: do not read, write or
/// close it.
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
    pub(crate) engine: Engine,
    pub(crate) fd: RawFd,
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
