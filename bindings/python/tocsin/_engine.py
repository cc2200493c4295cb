"""Engine: many timers on one kernel timer, in one of three delivery modes."""

from __future__ import annotations

import atexit
import ctypes
import os
import threading
import weakref
from ctypes import byref, c_double, c_int, c_size_t, c_uint64, c_void_p, cast
from datetime import datetime
from typing import Any, Callable, Optional

from . import _library
from ._errors import (
    ECLOSED,
    EINVAL,
    EIO,
    ENOENT,
    ERANGE,
    ESTATE,
    EngineClosedError,
    InvalidArgumentError,
    NoOccurrenceError,
    WrongStateError,
    error_for,
    file_error,
    python_name,
    seconds_error,
)
from ._timer import Timer
from ._values import (
    EVENTS_ALL,
    EVENTS_FINISH,
    EVENTS_STATE,
    Clock,
    Event,
    EventKind,
    Handler,
    Seconds,
    State,
    TickPolicy,
    encode_label,
    event_from,
    to_clock,
    to_seconds,
    to_tick_policy,
    to_unix_time,
)

DEFAULT, POLLED, MANUAL_CLOCK = 0, 1, 2

# Enum members looked up once: each lookup costs ~100 ns per event.
_FINISH = EventKind.FINISH
_STATE = EventKind.STATE
_RUNNING, _SUSPENDED = State.RUNNING, State.SUSPENDED
_RUN_ENDED = (State.FINISHED, State.CANCELED)

#: Engines with running or suspended timers: kept alive like running threads.
_busy: set["Engine"] = set()
#: Every open engine, closed at interpreter exit before Python tears down.
_open: "weakref.WeakSet[Engine]" = weakref.WeakSet()


@atexit.register
def _close_all() -> None:
    for engine in list(_open):
        engine.close()


class Engine:
    """Many countdowns and stopwatches driven by one kernel timer.

    Modes: the default runs handlers on the engine's own thread;
    ``polled=True`` runs them inside ``dispatch()`` when ``fileno()`` is
    readable (see ``tocsin.aio`` for asyncio); ``manual_clock=True`` never
    reads the real clock and runs them inside ``advance(seconds)``, for tests.

    Use as a context manager, or call ``close()``. Every method may be called
    from any thread and from inside a handler.

    The engine makes every C call of libtocsin.so for itself and its
    timers; ``Timer`` reaches it only through the few methods under
    "Timer's way in" below.

    ``library``: path of libtocsin.so (else $TOCSIN_LIBRARY, the bundled copy,
    the system's). ``on_error(exception, event)``: called when a handler
    raises; by default the exception goes to ``sys.unraisablehook``.
    """

    def __init__(
        self,
        *,
        manual_clock: bool = False,
        polled: bool = False,
        library: Optional[str] = None,
        on_error: Optional[Callable[[BaseException, Event], object]] = None,
    ) -> None:
        if manual_clock and polled:
            raise InvalidArgumentError(-1, "choose one of manual_clock and polled")
        self._lib = _library.load(library)
        self._mode = MANUAL_CLOCK if manual_clock else POLLED if polled else DEFAULT
        self._ptr: Optional[int] = None
        self._closed = False
        self.on_error = on_error
        # handle -> Timer, weakly (a plain dict of refs: a WeakValueDictionary
        # costs a microsecond per timer); entries go in Timer.free/__del__.
        self._timers: dict[int, "weakref.ReferenceType[Timer]"] = {}
        self._active: dict[int, Timer] = {}
        self._handlers: tuple[Handler, ...] = ()
        #: Notifiers with alerts on this engine's timers: told before it closes
        #: (see ``_on_close``).
        self._notifiers: "weakref.WeakSet[Any]" = weakref.WeakSet()
        self._lock = threading.Lock()
        # One thunk for every timer of this engine, alive as long as the engine.
        self._callback = _library.CALLBACK(self._deliver)
        self._callback_address = cast(self._callback, c_void_p).value
        pointer = c_void_p()
        self._lib.tocsin_engine_new(self._mode, byref(pointer))
        self._ptr = pointer.value
        # after()'s C call without argtypes: its pointer arguments are
        # wrapped once here and only `seconds` per call, ~130 ns a call less
        # than argtypes' conversions (the binding's per-timer hot path).
        self._countdown_start = self._lib._FuncPtr(("tocsin_countdown_start", self._lib))
        self._countdown_start.restype = c_int
        # Status checked inline, not by an errcheck (one Python call less per C call).
        self._unchecked: dict[str, Any] = {}
        self._timer_state = _library.unchecked(self._lib, "tocsin_timer_state")
        self._timer_free = _library.unchecked(self._lib, "tocsin_timer_free")
        self._timer_cancel = _library.unchecked(self._lib, "tocsin_timer_cancel")
        self._timer_start = _library.unchecked(self._lib, "tocsin_timer_start")
        self._timer_resume = _library.unchecked(self._lib, "tocsin_timer_resume")
        self._countdown_new = _library.unchecked(self._lib, "tocsin_countdown_new")
        self._set_callback = _library.unchecked(self._lib, "tocsin_timer_set_callback")
        self._started = c_uint64()  # after()'s out-parameter, used under _lock
        self._seconds = c_double()  # after()'s seconds, set under _lock (a new c_double costs twice as much)
        self._after_arguments = (
            c_void_p(self._ptr), self._seconds, c_void_p(self._callback_address), byref(self._started))
        _open.add(self)

    # -- modes -----------------------------------------------------------------

    @property
    def mode(self) -> str:
        return ("default", "polled", "manual_clock")[self._mode]

    @property
    def closed(self) -> bool:
        return self._closed

    def fileno(self) -> int:
        """Polled mode: an fd that is readable while events wait (and at most
        once more at the deadline of a cancelled earliest timer, when
        ``dispatch()`` returns 0)."""
        return self._call("tocsin_engine_fd")

    def dispatch(self) -> int:
        """Polled mode: runs the handlers of the events waiting now, on this
        thread. Returns how many events it delivered."""
        return self._call("tocsin_engine_dispatch")

    def advance(self, seconds: Seconds) -> int:
        """Manual clock: moves time on and delivers, in order, everything due
        by then. Returns how many events it delivered."""
        return self._manual("tocsin_engine_advance", to_seconds(seconds))

    def simulate_suspend(self, seconds: Seconds) -> int:
        """Manual clock: a suspend of the machine for ``seconds``: the boot and
        wall clocks move on, the awake clock does not (AWAKE timers stand
        still); what fell due meanwhile is delivered, late. Returns how many
        events it delivered."""
        return self._manual("tocsin_engine_simulate_suspend", to_seconds(seconds))

    def _manual(self, name: str, *args: Any) -> int:
        """A call only a manual clock takes, said in Python's words when the
        engine has none."""
        try:
            return self._call(name, *args)
        except WrongStateError:
            raise WrongStateError(
                ESTATE, f"{python_name(name)}: this engine follows the real clocks; only one made with "
                        "tocsin.Engine(manual_clock=True) has a clock to move") from None

    def set_wall_clock(self, when: "float | int | datetime") -> int:
        """Manual clock: sets the wall clock (a Unix time or a datetime),
        forward or back; alarms it passes finish. Returns how many events it
        delivered."""
        return self._manual("tocsin_engine_set_wall_clock", to_unix_time(when))

    @property
    def now(self) -> float:
        """The engine's clock in seconds (boot clock, or the manual time)."""
        out = c_double()
        self._call("tocsin_engine_now", byref(out))
        return out.value

    @property
    def wall_clock(self) -> float:
        """The wall clock alarms follow, as a Unix time (manual clock: the
        simulated one, 0 until ``set_wall_clock``)."""
        out = c_double()
        self._call("tocsin_engine_wall_clock", byref(out))
        return out.value

    def can_wake(self) -> bool:
        """True if this engine's wake timers (``timer.set_wake(True)``) can
        wake a suspended machine: the process has CAP_WAKE_ALARM and the
        machine a wake-capable clock. When False, ``wake_reason`` says why;
        wake timers then ring as any other (see tocsin.h)."""
        return self._call("tocsin_engine_can_wake") == 1

    @property
    def wake_reason(self) -> str:
        """Why wake timers cannot wake the machine ("no CAP_WAKE_ALARM:
        ..."); "" when they can."""
        length = self._call("tocsin_engine_wake_reason", None, 0)
        buffer = ctypes.create_string_buffer(length + 1)
        self._call("tocsin_engine_wake_reason", buffer, length + 1)
        return buffer.value.decode("utf-8")

    # -- timers ----------------------------------------------------------------

    def countdown(
        self, seconds: Seconds, *, label: Optional[str] = None, tick: Optional[Seconds] = None,
        tick_policy: "Optional[TickPolicy | str]" = None, clock: "Optional[Clock | str]" = None,
        leeway: Optional[Seconds] = None,
    ) -> Timer:
        """A new idle countdown of ``seconds`` (0 < seconds <= 100 years).
        ``tick_policy``: see ``Timer.set_tick_policy``; ``clock``: see
        ``Timer.set_clock``; ``leeway``: see ``Timer.set_leeway``."""
        given = seconds
        if type(seconds) is not float:  # the common case skips the checks
            seconds = to_seconds(seconds)
        handle = c_uint64()
        pointer = self._ptr
        if pointer is None:
            raise EngineClosedError(ECLOSED, "tocsin_countdown_new: the engine is closed")
        status = self._countdown_new(pointer, seconds, byref(handle))  # inline: a hot path
        if status < 0:
            raise seconds_error(status, "countdown", given)
        return self._adopt(handle.value, label, tick, tick_policy, clock, leeway)

    def stopwatch(
        self, *, label: Optional[str] = None, tick: Optional[Seconds] = None,
        tick_policy: "Optional[TickPolicy | str]" = None, clock: "Optional[Clock | str]" = None,
        leeway: Optional[Seconds] = None,
    ) -> Timer:
        """A new idle stopwatch: counts up, never finishes."""
        handle = c_uint64()
        self._call("tocsin_stopwatch_new", byref(handle))
        return self._adopt(handle.value, label, tick, tick_policy, clock, leeway)

    def alarm(
        self, when: "float | int | datetime", *, label: Optional[str] = None, tick: Optional[Seconds] = None,
        tick_policy: "Optional[TickPolicy | str]" = None, leeway: Optional[Seconds] = None,
    ) -> Timer:
        """A new idle alarm that finishes when the wall clock reaches ``when``
        (a Unix time, or a datetime: a naive one is local time), following
        every change of the wall clock while it runs. ``remaining`` is the
        time until then; see tocsin.h (tocsin_alarm_new) for suspend, restart
        and adjust."""
        handle = c_uint64()
        self._call("tocsin_alarm_new", to_unix_time(when), byref(handle))
        return self._adopt(handle.value, label, tick, tick_policy, leeway=leeway)

    def calendar(
        self, spec: str, *, label: Optional[str] = None, tick: Optional[Seconds] = None,
        tick_policy: "Optional[TickPolicy | str]" = None, leeway: Optional[Seconds] = None,
    ) -> Timer:
        """A new idle calendar alarm: started, it rings at every occurrence
        of ``spec`` (systemd's calendar syntax: "Mon..Fri 07:00",
        "*-*-01 09:00 Europe/Berlin", "*:0/15"): a FINISH whose state is
        still RUNNING, ``remaining`` the time to the next occurrence and
        ``missed`` the occurrences passed over (after a suspend or a clock
        jump). It never finishes on its own. See tocsin.h
        (tocsin_calendar_new) for the rules across DST, suspend and restarts.

        Raises CalendarSpecError (with ``column``) for a spec that does not
        parse or an unknown zone, NoOccurrenceError if it has no occurrence
        left."""
        from ._calendar import encode_spec, shown, spec_error

        if self._ptr is None:
            raise EngineClosedError(ECLOSED, "tocsin_calendar_new: the engine is closed")
        handle = c_uint64()
        status = _library.unchecked(self._lib, "tocsin_calendar_new")(self._ptr, encode_spec(spec), byref(handle))
        if status == EINVAL:
            raise spec_error(spec)
        if status == ERANGE:
            raise NoOccurrenceError(ERANGE, f"Engine.calendar(): {shown(spec)} has no occurrence after now")
        if status < 0:
            raise error_for(status, "tocsin_calendar_new")
        return self._adopt(handle.value, label, tick, tick_policy, leeway=leeway)

    def after(
        self, seconds: Seconds, handler: Callable[..., object], *args: object, label: Optional[str] = None
    ) -> Timer:
        """The one-shot in one call, like ``loop.call_later``: starts a
        countdown of ``seconds`` whose FINISH calls ``handler(event, *args)``,
        and returns the running Timer. The engine keeps it alive until it
        finishes or is cancelled; free it, or drop it, when done. Only its
        FINISH reaches Python until handlers for other kinds are added (its
        other events are not even queued unless an observer, such as a desktop
        notifier, watches the engine). ``timer.remove_handler(handler)``
        removes it."""
        if not callable(handler):
            raise InvalidArgumentError(-1, "handler must be callable")
        given = seconds
        if type(seconds) is not float:  # the common case skips the checks
            seconds = to_seconds(seconds)
        encoded = encode_label(label) if label else None  # bad labels fail before anything starts
        events = EVENTS_ALL if self._handlers else EVENTS_FINISH
        timer = Timer._made(self, 0, False, handler, args, events)  # its handle comes from the C call
        engine_argument, seconds_argument, callback_argument, started = self._after_arguments
        # Registered under the lock: a FINISH delivered on the engine thread
        # before this returns waits for it in _deliver. (acquire/release, not
        # `with`: 60 ns less on this path.)
        lock = self._lock
        lock.acquire()
        try:
            if self._ptr is None or self._closed:
                timer._mark_freed()
                raise EngineClosedError(ECLOSED, "tocsin_countdown_start: the engine is closed")
            seconds_argument.value = seconds
            status = self._countdown_start(engine_argument, seconds_argument, events, callback_argument, None, started)
            if status < 0:
                timer._mark_freed()
                raise seconds_error(status, "after", given)
            handle = timer._handle = self._started.value
            self._active[handle] = timer  # in _timers too once its run ends (_release_if_idle)
            _busy.add(self)
        finally:
            lock.release()
        if encoded:
            try:
                self._call("tocsin_timer_set_label", handle, encoded)
            except BaseException:
                timer.free()  # a failed call leaves nothing behind
                raise
        return timer

    def _adopt(
        self, handle: int, label: Optional[str], tick: Optional[Seconds],
        tick_policy: "Optional[TickPolicy | str]" = None, clock: "Optional[Clock | str]" = None,
        leeway: Optional[Seconds] = None,
    ) -> Timer:
        timer = Timer._made(self, handle)
        self._timers[handle] = weakref.ref(timer)
        try:
            pointer = self._ptr  # None if another thread closed the engine meanwhile
            status = ECLOSED if pointer is None else self._set_callback(pointer, handle, self._callback_address, None)
            if status < 0:
                raise error_for(status, "tocsin_timer_set_callback")
            if label:
                self._call("tocsin_timer_set_label", handle, encode_label(label))
            if tick:
                self._call("tocsin_timer_set_tick", handle, to_seconds(tick))
            if tick_policy is not None:
                self._call("tocsin_timer_set_tick_policy", handle, int(to_tick_policy(tick_policy)))
            if clock is not None:
                self._call("tocsin_timer_set_clock", handle, int(to_clock(clock)))
            if leeway:
                self._call("tocsin_timer_set_leeway", handle, to_seconds(leeway))
        except BaseException:
            timer.free()  # a failed call leaves nothing behind
            raise
        return timer

    # -- saving and restoring -----------------------------------------------------

    def timers(self) -> list[Timer]:
        """Every timer of the engine, in creation order."""
        count = self._call("tocsin_engine_timers", None, 0)
        handles = (c_uint64 * max(count, 1))()
        count = min(count, self._call("tocsin_engine_timers", handles, count))
        return [self._timer(handle) or self._restored(handle) for handle in handles[:count]]

    def save(self, path: "str | os.PathLike[str]") -> None:
        """Writes every timer to ``path`` atomically (mode 0600); see
        docs/timer-file.md. Raises TocsinIOError if it cannot be written
        (the OSError of its errno too: PermissionError, or ``errno`` ENOSPC
        for a full disk); the file is then as it was."""
        self._file_call("tocsin_engine_save", path)

    def load(self, path: "str | os.PathLike[str]") -> list[Timer]:
        """Adds the timers saved at ``path`` and returns them. Time that passed
        since the save counts for running timers; a countdown that ran out
        meanwhile comes back finished and its FINISH event (lateness: how long
        ago) goes to the first handler added to it. Raises TocsinIOError for a
        file that cannot be read (TocsinFileNotFoundError, also a
        FileNotFoundError, for a missing one), CorruptError for a bad one;
        the engine is then unchanged."""
        restored = c_size_t()
        self._file_call("tocsin_engine_load", path, byref(restored))
        # Loaded timers come last in creation order.
        return self.timers()[-restored.value:] if restored.value else []

    def _restored(self, handle: int) -> Timer:
        """A Timer for a handle the engine made (by loading a file)."""
        running = State(self._call("tocsin_timer_state", handle)) in (State.RUNNING, State.SUSPENDED)
        timer = Timer._made(self, handle, not running)  # deferred
        self._timers[handle] = weakref.ref(timer)
        if running:
            self._listen(handle)
            self._hold(timer)
        return timer

    def on_event(self, handler: Handler) -> Handler:
        """Calls ``handler(event)`` for every event of every timer of this engine."""
        with self._lock:
            self._handlers = self._handlers + (handler,)
            timers = [ref() for ref in list(self._timers.values())] + list(self._active.values())
        for timer in timers:
            if timer is not None:
                timer._want(EVENTS_ALL)
        return handler

    # -- closing ---------------------------------------------------------------

    def close(self) -> None:
        """Frees every timer. When it returns no handler is running or will
        run (from inside a handler it returns at once and delivery stops when
        that handler returns). Closing again does nothing."""
        with self._lock:
            if self._closed or self._ptr is None:
                return
            self._closed = True
        for notifier in list(self._notifiers):
            notifier._forget(self)
        self._lib.tocsin_engine_close(self._ptr)  # releases the GIL while it waits
        self._active.clear()
        _busy.discard(self)

    def __enter__(self) -> "Engine":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        pointer, self._ptr = getattr(self, "_ptr", None), None
        if pointer is not None:
            self._lib.tocsin_engine_free(pointer)

    def __repr__(self) -> str:
        return f"<tocsin.Engine {self.mode}{' closed' if self._closed else ''}>"

    # -- Timer's way in ------------------------------------------------------------
    # The only methods Timer calls. Each takes the timer (or its handle) and
    # makes the C call with this engine's pointer, raising on a negative status.

    def _call(self, name: str, *args: Any) -> int:
        """Calls a C function that returns a status or count; negative raises.
        The general, checked way: looks the function up by name (cached)."""
        if self._ptr is None:
            raise EngineClosedError(ECLOSED, f"{name}: the engine is closed")
        function = self._unchecked.get(name)
        if function is None:
            function = self._unchecked[name] = _library.unchecked(self._lib, name)
        status: int = function(self._ptr, *args)
        if status < 0:
            raise error_for(status, name)
        return status

    def _file_call(self, name: str, path: "str | os.PathLike[str]", *args: Any) -> None:
        """A call on a file: TOCSIN_EIO raises the OSError its errno makes."""
        if self._ptr is None:
            raise EngineClosedError(ECLOSED, f"{name}: the engine is closed")
        function = self._unchecked.get(name + "/errno")
        if function is None:
            function = self._unchecked[name + "/errno"] = _library.keeping_errno(self._lib, name)
        ctypes.set_errno(0)
        status: int = function(self._ptr, os.fsencode(path), *args)
        if status == EIO:
            raise file_error(name, ctypes.get_errno(), os.fspath(path))
        if status < 0:
            raise error_for(status, name)

    def _start(self, timer: Timer) -> None:
        """``tocsin_timer_start``, keeping the timer alive from before the call
        (its run may end before the call returns)."""
        self._run(timer, self._timer_start, "tocsin_timer_start")

    def _resume(self, timer: Timer) -> None:
        """``tocsin_timer_resume``, keeping the timer alive like ``_start``."""
        self._run(timer, self._timer_resume, "tocsin_timer_resume")

    def _run(self, timer: Timer, function: Any, name: str) -> None:
        self._hold(timer)
        try:
            self._fast_call(function, name, timer)
        except BaseException:
            self._release_if_idle(timer._handle)
            raise

    def _cancel(self, timer: Timer, releases_itself: bool) -> None:
        """``tocsin_timer_cancel``; ``releases_itself``: no STATE(CANCELED)
        will come to end the keep-alive, so end it now."""
        pointer = self._ptr  # _fast_call inline: cancels come in bulk
        if timer._freed or pointer is None:
            timer._call("tocsin_timer_cancel")  # raises the error that says which
        status = self._timer_cancel(pointer, timer._handle)
        if status < 0:
            raise error_for(status, "tocsin_timer_cancel")
        if releases_itself:
            self._release_if_idle(timer._handle)

    def _listen(self, handle: int) -> None:
        """Gives the timer this engine's C callback (a restored timer gets it
        with its first handler or run)."""
        self._call("tocsin_timer_set_callback", handle, self._callback_address, None)

    def _fast_call(self, function: Any, name: str, timer: Timer) -> None:
        """A C call on a timer through a function cached at creation: no
        lookup by name, no argument packing (start and cancel come in bulk)."""
        pointer = self._ptr
        if timer._freed or pointer is None:
            timer._call(name)  # raises the error that says which
        status = function(pointer, timer._handle)
        if status < 0:
            raise error_for(status, name)

    # -- for the notifier ------------------------------------------------------------

    def _c_pointer(self) -> Optional[int]:
        """The ``tocsin_engine *`` (None once closed), for libtocsin-notify."""
        return self._ptr

    def _on_close(self, notifier: Any) -> None:
        """Calls ``notifier._forget(self)`` before this engine closes (held weakly)."""
        self._notifiers.add(notifier)

    # -- internals ---------------------------------------------------------------

    def _hold(self, timer: Timer) -> None:
        """Keeps a starting timer alive until its run ends."""
        with self._lock:
            self._active[timer._handle] = timer
            _busy.add(self)

    def _release_if_idle(self, handle: int) -> None:
        """Drops the keep-alive of a timer that is no longer running or suspended."""
        state = self._timer_state(self._ptr, handle) if self._ptr else -1  # < 0: freed or closed
        if state == _RUNNING or state == _SUSPENDED:
            return
        with self._lock:
            timer = self._active.pop(handle, None)
            if timer is not None and handle not in self._timers:
                self._timers[handle] = weakref.ref(timer)  # an after() timer: findable while referenced
            if not self._active:
                _busy.discard(self)

    def _timer(self, handle: int) -> Optional[Timer]:
        """The live Timer of a handle, if any."""
        timer = self._active.get(handle)
        if timer is None:
            ref = self._timers.get(handle)
            timer = ref() if ref is not None else None
        return timer

    def _forget(self, handle: int, quietly: bool = False) -> None:
        """Frees a timer's C side (from Timer.free or its finalizer)."""
        with self._lock:
            self._timers.pop(handle, None)
            self._active.pop(handle, None)
            if not self._active:
                _busy.discard(self)
        if self._ptr is None:
            return
        status = self._timer_free(self._ptr, handle)
        if status < 0 and not quietly and status not in (ECLOSED, ENOENT):
            raise error_for(status, "tocsin_timer_free")

    def _deliver(self, engine: Any, c_event: Any, user_data: Any) -> None:
        """The C callback of every timer: runs the handlers. Exceptions go to
        on_error, or leave this function so that ctypes hands them to
        sys.unraisablehook; delivery carries on either way."""
        raw = c_event.contents
        handle, kind = raw.timer, raw.kind  # each ctypes field read costs ~100 ns
        timer = self._timer(handle)
        if timer is None:
            with self._lock:  # after() may be registering it
                timer = self._timer(handle)
            if timer is None:
                return
        by_kind = timer._handlers
        handlers = (by_kind.get(kind, ()) + by_kind.get(None, ()) + self._handlers) if by_kind else self._handlers
        once = timer._once if kind == _FINISH else None
        # The run's last event this timer gets ends its keep-alive: STATE
        # FINISHED or CANCELED, or FINISH when STATE events are not asked for
        # (cancel() then releases it itself).
        if kind == _STATE:
            ends_run = raw.state in _RUN_ENDED
        else:
            ends_run = kind == _FINISH and not timer._events & EVENTS_STATE
        if not handlers and once is None:  # the common STATE event nobody asked for: no Event built
            if ends_run:
                self._release_if_idle(handle)
            return
        event = event_from(raw, timer)
        errors: list[BaseException] = []
        if once is not None:
            try:
                once(event, *timer._once_args)
            except Exception as error:
                errors.append(error)
        for handler in handlers:
            try:
                handler(event)
            except Exception as error:
                errors.append(error)
        if ends_run:
            self._release_if_idle(handle)
        for failure in errors:
            if self.on_error is None:
                raise failure
            try:
                self.on_error(failure, event)
            except Exception as hook_error:
                raise hook_error from failure
