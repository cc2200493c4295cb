//! [`Events`]: an engine's (or a timer's) events as an iterator, and
//! waiting on a polled engine's fd with `poll(2)`.

use std::os::raw::c_int;
use std::os::unix::io::RawFd;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::Arc;
use std::time::Duration;

use tocsin_sys as sys;

use crate::error::Result;
use crate::inner::{Inner, Mode, Sink};
use crate::values::{Event, TimerId};

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

/// Events of an engine (or of one timer: [`Timer::event_stream`](crate::Timer::event_stream))
/// as an iterator; see [`Engine::events`](crate::Engine::events),
/// [`PolledEngine::events`](crate::PolledEngine::events), [`ManualEngine::events`](crate::ManualEngine::events)
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
