//! [`Timer`]'s events: its closure, which kinds reach it, its events as an
//! iterator, and waiting for its finish.

use std::sync::{Arc, Mutex};

use tocsin_sys as sys;

use crate::error::{check, Error, Result};
use crate::events::Events;
use crate::inner::{deliver, lock, Handler};
use crate::values::{Event, EventMask, State, TimerId};
use crate::Timer;

impl Timer {
    /// Calls `f` for each of this timer's events (those [`set_events`](Timer::set_events)
    /// lets through; all by default), in place of any closure before.
    ///
    /// `f` runs where the engine's mode delivers (the engine's own thread,
    /// or inside `dispatch`/`advance` on the caller's thread), one call at a
    /// time, never while a lock of the engine or of this crate is held: it
    /// may call anything, including `free` of its own timer. It is
    /// `Send + 'static` because the engine's thread calls it. A panic in
    /// `f` is caught (the panic hook prints it) and delivery carries on.
    /// Events that fall while a timer has no closure are dropped.
    ///
    /// A closure that is not `Send` is refused at compile time:
    ///
    /// ```compile_fail
    /// let engine = tocsin::Engine::new().unwrap();
    /// let timer = engine.countdown(1).unwrap();
    /// let counter = std::rc::Rc::new(std::cell::Cell::new(0)); // not Send
    /// timer.on_event(move |_| counter.set(counter.get() + 1)).unwrap();
    /// ```
    pub fn on_event<F>(&self, f: F) -> Result<&Timer>
    where
        F: FnMut(&Event) + Send + 'static,
    {
        let handler = Arc::new(Handler::Each(Mutex::new(Box::new(f))));
        let old = lock(&self.inner.handlers).insert(self.id, handler);
        drop(old); // outside the lock
                   // SAFETY: deliver() reads user_data as this Inner, which outlives the C engine.
        let status =
            unsafe { sys::tocsin_timer_set_callback(self.inner.ptr, self.id, Some(deliver), self.inner.user_data()) };
        if status < 0 {
            let gone = lock(&self.inner.handlers).remove(&self.id);
            drop(gone);
            return Err(Error::new(status, "on_event", None));
        }
        Ok(self)
    }

    /// Removes the timer's closure; its events are dropped from now on (a
    /// closure running on the engine's thread may finish after this returns).
    pub fn clear_callback(&self) -> Result<&Timer> {
        // SAFETY: a NULL callback is allowed.
        let status = unsafe { sys::tocsin_timer_set_callback(self.inner.ptr, self.id, None, std::ptr::null_mut()) };
        check(status, "clear_callback")?;
        let gone = lock(&self.inner.handlers).remove(&self.id);
        drop(gone);
        Ok(self)
    }

    /// Chooses which kinds of event reach the closure (default
    /// [`EventMask::ALL`]). A STATE event nobody wants is never queued, so
    /// a timer that needs only FINISH costs less.
    pub fn set_events(&self, events: EventMask) -> Result<&Timer> {
        // SAFETY: as in start.
        let status = unsafe { sys::tocsin_timer_set_events(self.inner.ptr, self.id, events.0) };
        check(status, "set_events")?;
        Ok(self)
    }

    /// The kinds of event that reach the closure.
    pub fn events(&self) -> Result<EventMask> {
        // SAFETY: as in start.
        Ok(EventMask(
            check(unsafe { sys::tocsin_timer_events(self.inner.ptr, self.id) }, "events")? as u32,
        ))
    }

    /// This timer's events as an iterator (of every kind, whatever
    /// [`set_events`](Timer::set_events) says), waiting as
    /// [`Engine::events`](crate::Engine::events) does in the engine's mode.
    pub fn event_stream(&self) -> Result<Events> {
        Events::new(&self.inner, Some(TimerId(self.id)))
    }

    /// Waits until this timer's current run ends and returns its FINISH
    /// event. On an [`Engine`](crate::Engine) (own thread) it blocks; on a
    /// polled engine it dispatches meanwhile; on a manual clock it returns
    /// [`Error::WrongState`] unless the FINISH was already delivered (move
    /// the clock first). Errors: [`Error::WrongState`] if the run is
    /// cancelled, or the timer is not running. A timer freed by another
    /// thread meanwhile sends nothing more: the wait then lasts until the
    /// engine is dropped.
    pub fn wait(&self) -> Result<Event> {
        let mut events = self.event_stream()?;
        let state = self.state()?;
        if state == State::Finished {
            return self.finished_event();
        }
        if state != State::Running && state != State::Suspended {
            let detail = format!("this timer {}: start it first", state.words());
            return Err(Error::new(sys::TOCSIN_ESTATE, "wait", Some(&detail)));
        }
        for event in &mut events {
            if let Some(result) = self.ends_wait(&event) {
                return result;
            }
        }
        let detail = "the engine was dropped, or a manual clock not moved, before the timer finished";
        Err(Error::new(sys::TOCSIN_ESTATE, "wait", Some(detail)))
    }

    /// `Some` once `event` ends a wait for the finish.
    pub(crate) fn ends_wait(&self, event: &Event) -> Option<Result<Event>> {
        use crate::EventKind;
        match (event.kind, event.state) {
            (EventKind::Finish, _) => Some(Ok(*event)),
            (EventKind::State, State::Canceled) => Some(Err(Error::new(
                sys::TOCSIN_ESTATE,
                "wait",
                Some("the timer was cancelled before it finished"),
            ))),
            _ => None,
        }
    }

    /// The FINISH of a timer that finished already, made up from its values.
    pub(crate) fn finished_event(&self) -> Result<Event> {
        Ok(Event {
            kind: crate::EventKind::Finish,
            state: State::Finished,
            timer: TimerId(self.id),
            elapsed: self.elapsed()?,
            remaining: Some(0.0),
            tick: 0,
            lateness: 0.0,
            missed: 0,
        })
    }
}
