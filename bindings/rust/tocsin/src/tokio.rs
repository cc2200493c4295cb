//! An async face (feature `tokio`): [`AsyncEngine`] drives a polled engine
//! from tokio's reactor with [`tokio::io::unix::AsyncFd`], and
//! [`Timer::finished`] awaits a timer's FINISH on an engine of any mode.
//! Uses only tokio 1.x API that 1.24 has (`net`, `rt`, `sync`).
//!
//! ```
//! # let runtime = tokio::runtime::Builder::new_current_thread().enable_io().build().unwrap();
//! # runtime.block_on(async {
//! let engine = tocsin::tokio::AsyncEngine::new()?;
//! let tea = engine.countdown(0.02)?;
//! tea.start()?;
//! let finish = tea.finished().await?;
//! assert_eq!(finish.timer, tea.id());
//! # Ok::<(), tocsin::Error>(())
//! # }).unwrap();
//! ```

use std::ops::Deref;
use std::os::unix::io::{AsRawFd, RawFd};
use std::sync::Arc;

use tokio::io::unix::AsyncFd;
use tokio::sync::mpsc::{unbounded_channel, UnboundedReceiver};
use tokio::task::JoinHandle;

use tocsin_sys as sys;

use crate::error::{Error, Result};
use crate::events::poll_readable;
use crate::inner::{Inner, Sink};
use crate::{Event, PolledEngine, State, Timer, TimerId};

/// The engine's fd, lent to tokio's reactor (not owned: the engine closes it).
struct EngineFd(RawFd);

impl AsRawFd for EngineFd {
    fn as_raw_fd(&self) -> RawFd {
        self.0
    }
}

/// A polled engine whose fd tokio's reactor watches: a task spawned on the
/// current runtime dispatches whenever it is readable, so closures run on
/// that task's thread. Dereferences to [`PolledEngine`] (and so to
/// [`Engine`](crate::Engine)) for everything else. Dropping it stops the
/// task; the engine closes when the task is gone (at the runtime's next
/// turn), after the task has taken the fd out of the reactor, so the fd's
/// number is never closed while tokio still watches it.
pub struct AsyncEngine {
    engine: Arc<PolledEngine>,
    driver: JoinHandle<()>,
    events: tokio::sync::Mutex<Option<(u64, UnboundedReceiver<Event>)>>,
}

impl std::fmt::Debug for AsyncEngine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AsyncEngine").finish_non_exhaustive()
    }
}

impl AsyncEngine {
    /// A new polled engine driven by the current tokio runtime (which needs
    /// its IO driver: `enable_io()` or `enable_all()`). Errors:
    /// [`Error::Unavailable`] outside a runtime, [`Error::Io`] if the fd
    /// cannot be registered.
    pub fn new() -> Result<AsyncEngine> {
        let runtime = tokio::runtime::Handle::try_current().map_err(|_| {
            Error::new(
                sys::TOCSIN_EUNAVAILABLE,
                "AsyncEngine::new",
                Some("not inside a tokio runtime"),
            )
        })?;
        let engine = Arc::new(PolledEngine::new()?);
        let fd = {
            let _entered = runtime.enter();
            AsyncFd::new(EngineFd(engine.as_raw_fd()))
        }
        .map_err(|os| Error::Io(format!("AsyncEngine::new: cannot watch the engine's fd: {os}"), os))?;
        let driver = runtime.spawn(drive(Driver {
            fd,
            engine: Arc::clone(&engine),
        }));
        Ok(AsyncEngine {
            engine,
            driver,
            events: tokio::sync::Mutex::new(None),
        })
    }

    /// The next event of any timer of this engine. Events are queued from
    /// the first call on (every event of every timer from then, while the
    /// engine lives). Errors: [`Error::Closed`] once the engine is gone.
    pub async fn next_event(&self) -> Result<Event> {
        let mut events = self.events.lock().await;
        if events.is_none() {
            let (sender, receiver) = unbounded_channel();
            let key = self.engine.inner.subscribe(None, Sink::Tokio(sender))?;
            *events = Some((key, receiver));
        }
        let (_, receiver) = events.as_mut().expect("set above");
        receiver
            .recv()
            .await
            .ok_or_else(|| Error::new(sys::TOCSIN_ECLOSED, "next_event", None))
    }
}

impl Deref for AsyncEngine {
    type Target = PolledEngine;
    fn deref(&self) -> &PolledEngine {
        &self.engine
    }
}

impl Drop for AsyncEngine {
    fn drop(&mut self) {
        self.driver.abort();
        if let Some((key, _)) = self.events.get_mut().take() {
            self.engine.inner.unsubscribe(key);
        }
    }
}

/// What the driver task owns. Fields drop in order: the fd leaves the
/// reactor before the last reference to the engine can close it.
struct Driver {
    fd: AsyncFd<EngineFd>,
    engine: Arc<PolledEngine>,
}

/// The driver task: dispatch whenever the fd is readable; clear tokio's
/// readiness only once the fd is clear, so nothing due is missed.
async fn drive(driver: Driver) {
    loop {
        let mut ready = match driver.fd.readable().await {
            Ok(ready) => ready,
            Err(_) => return,
        };
        if driver.engine.dispatch().is_err() {
            return; // closed
        }
        if !poll_readable(driver.fd.get_ref().0, Some(std::time::Duration::ZERO)) {
            ready.clear_ready();
        }
    }
}

impl Timer {
    /// Waits until the timer's current run (or, if idle, its next) ends
    /// and returns its FINISH event (made up from its values if it had
    /// finished already). Works on an engine of every mode: the engine's
    /// thread, an [`AsyncEngine`], or a manual clock moved meanwhile. Does
    /// not block the runtime. Errors: [`Error::WrongState`] if the run is
    /// cancelled first, [`Error::Closed`] if the engine goes.
    pub async fn finished(&self) -> Result<Event> {
        let (sender, mut receiver) = unbounded_channel();
        let key = self
            .inner()
            .subscribe(Some(TimerId(self.as_raw())), Sink::Tokio(sender))?;
        let _unsubscribe = Unsubscribe(self.inner(), key);
        if self.state()? == State::Finished {
            return self.finished_event();
        }
        while let Some(event) = receiver.recv().await {
            if let Some(result) = self.ends_wait(&event) {
                return result;
            }
        }
        Err(Error::new(sys::TOCSIN_ECLOSED, "finished", None))
    }
}

struct Unsubscribe<'a>(&'a Arc<Inner>, u64);

impl Drop for Unsubscribe<'_> {
    fn drop(&mut self) {
        self.0.unsubscribe(self.1);
    }
}
