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
    NoSuchTimerError,
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
#: TOCSIN_MAX_SECONDS: the longest duration, 100 years.
MAX_SECONDS = 3155760000.0

# Enum members looked up once: each lookup costs ~100 ns per event.
_FINISH = EventKind.FINISH
_STATE = EventKind.STATE
_RUNNING, _SUSPENDED = State.RUNNING, State.SUSPENDED
_RUN_ENDED = (State.FINISHED, State.CANCELED)

_pending_countdown = Timer._pending
_weak = weakref.ref

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
        # id -> Timer, weakly, in the order they were made: countdowns not
        # made in C yet (see _make).
        self._pending: dict[int, "weakref.ReferenceType[Timer]"] = {}
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
        # The per-timer hot path (making, starting and freeing a timer) calls
        # C without argtypes: its arguments go ready-made, the engine pointer
        # and callback address wrapped once here and each timer's handle once
        # when it is made (Timer._c_handle), ~1,400 instructions a call less
        # than argtypes' conversions. Only arguments of the exact C types go
        # to these (c_void_p, c_uint64, float for double, byref of c_uint64).
        self._c_ptr = c_void_p(self._ptr)
        self._c_callback = c_void_p(self._callback_address)
        raw = self._raw
        self._countdown_start = raw("tocsin_countdown_start")
        # (With its argtypes: a float goes as a double only so; ready-made
        # arguments convert fast, and a c_uint64 goes by reference itself.)
        self._countdown_new = _library.unchecked(self._lib, "tocsin_countdown_new")
        self._raw_set_callback = raw("tocsin_timer_set_callback")
        self._raw_start = raw("tocsin_timer_start")
        self._raw_free = raw("tocsin_timer_free")
        # Status checked inline, not by an errcheck (one Python call less per C call).
        self._unchecked: dict[str, Any] = {}
        self._timer_state = _library.unchecked(self._lib, "tocsin_timer_state")
        self._timer_free = _library.unchecked(self._lib, "tocsin_timer_free")
        self._timer_start = _library.unchecked(self._lib, "tocsin_timer_start")
        # The pending countdown's start (in _start, under _lock) takes its
        # handle here: a c_uint64 per timer costs ~1,500 instructions, and
        # the garbage collector's passes over it as long as the timer lives.
        self._started = c_uint64()
        self._started_ref = byref(self._started)
        self._timer_cancel = _library.unchecked(self._lib, "tocsin_timer_cancel")
        self._timer_resume = _library.unchecked(self._lib, "tocsin_timer_resume")
        self._seconds = c_double()  # after()'s seconds, set under _lock (a new c_double costs twice as much)
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
        if type(seconds) is not float:  # the common cases skip the checks
            seconds = float(seconds) if type(seconds) is int else to_seconds(seconds)
        if not 0.0 < seconds <= MAX_SECONDS:  # tocsin_countdown_new's rule (NaN fails it too)
            raise seconds_error(EINVAL, "countdown", given)
        if self._closed:
            raise seconds_error(ECLOSED, "countdown", given)
        if label or tick or tick_policy is not None or clock is not None or leeway:
            handle = c_uint64()
            status = self._countdown_new(self._c_ptr, seconds, handle)
            if status < 0:
                raise seconds_error(status, "countdown", given)
            return self._adopt(handle, label, tick, tick_policy, clock, leeway)
        # The common case: made in C when first needed (see _make), in one
        # call with its start when that is what comes first.
        timer = _pending_countdown(self, seconds)
        self._pending[id(timer)] = _weak(timer)
        return timer

    def stopwatch(
        self, *, label: Optional[str] = None, tick: Optional[Seconds] = None,
        tick_policy: "Optional[TickPolicy | str]" = None, clock: "Optional[Clock | str]" = None,
        leeway: Optional[Seconds] = None,
    ) -> Timer:
        """A new idle stopwatch: counts up, never finishes."""
        handle = c_uint64()
        self._call("tocsin_stopwatch_new", byref(handle))
        return self._adopt(handle, label, tick, tick_policy, clock, leeway)

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
        return self._adopt(handle, label, tick, tick_policy, leeway=leeway)

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
        return self._adopt(handle, label, tick, tick_policy, leeway=leeway)

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
        c_handle = c_uint64()
        timer = Timer._made(self, 0, c_handle, False, handler, args, events)  # its handle comes from the C call
        seconds_argument = self._seconds
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
            status = self._countdown_start(self._c_ptr, seconds_argument, events, self._c_callback, None, byref(c_handle))
            if status < 0:
                timer._mark_freed()
                raise seconds_error(status, "after", given)
            handle = timer._handle = c_handle.value
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
        self, c_handle: c_uint64, label: Optional[str], tick: Optional[Seconds],
        tick_policy: "Optional[TickPolicy | str]" = None, clock: "Optional[Clock | str]" = None,
        leeway: Optional[Seconds] = None,
    ) -> Timer:
        """The Timer of a timer just made: registered (weakly) and given this
        engine's C callback, then the options set; if any of that fails the
        timer is freed and the error raised."""
        handle = c_handle.value
        timer = Timer._made(self, handle, c_handle)
        self._timers[handle] = weakref.ref(timer)
        status = self._raw_set_callback(self._c_ptr, c_handle, self._c_callback, None)
        if status < 0 or label or tick or tick_policy is not None or clock is not None or leeway:
            self._configure(timer, status, label, tick, tick_policy, clock, leeway)
        return timer

    def _configure(
        self, timer: Timer, status: int, label: Optional[str], tick: Optional[Seconds],
        tick_policy: "Optional[TickPolicy | str]", clock: "Optional[Clock | str]", leeway: Optional[Seconds],
    ) -> None:
        """_adopt's options (and its callback's status), off the hot path."""
        handle = timer._handle
        try:
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

    # -- saving and restoring -----------------------------------------------------

    def timers(self) -> list[Timer]:
        """Every timer of the engine, in creation order."""
        self._make_all()
        count = self._call("tocsin_engine_timers", None, 0)
        handles = (c_uint64 * max(count, 1))()
        count = min(count, self._call("tocsin_engine_timers", handles, count))
        return [self._timer(handle) or self._restored(handle) for handle in handles[:count]]

    def save(self, path: "str | os.PathLike[str]") -> None:
        """Writes every timer to ``path`` atomically (mode 0600); see
        docs/timer-file.md. Raises TocsinIOError if it cannot be written
        (the OSError of its errno too: PermissionError, or ``errno`` ENOSPC
        for a full disk); the file is then as it was."""
        self._make_all()
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
        self._make_all()  # made before: the loaded timers come last
        self._file_call("tocsin_engine_load", path, byref(restored))
        # Loaded timers come last in creation order.
        return self.timers()[-restored.value:] if restored.value else []

    def _restored(self, handle: int) -> Timer:
        """A Timer for a handle the engine made (by loading a file)."""
        running = State(self._call("tocsin_timer_state", handle)) in (State.RUNNING, State.SUSPENDED)
        timer = Timer._made(self, handle, c_uint64(handle), not running)  # deferred
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
        (its run may end before the call returns). ``_run`` inline: the
        per-timer hot path."""
        handle = timer._handle
        if not handle:  # a countdown not made in C yet: made and started in one call
            pending = self._pending
            lock = self._lock
            lock.acquire()  # _make inline when no other countdown waits to be made
            try:
                if len(pending) == 1 and not timer._handle and not timer._freed:
                    ref = pending.pop(id(timer), None)
                    if ref is not None:
                        argument = self._seconds
                        argument.value = timer._seconds
                        status = self._countdown_start(
                            self._c_ptr, argument, EVENTS_ALL, self._c_callback, None, self._started_ref)
                        if status < 0:
                            pending[id(timer)] = ref
                            raise error_for(status, "tocsin_timer_start")
                        handle = timer._handle = self._started.value  # its _c_handle stays None
                        self._active[handle] = timer  # in _timers too once its run ends (_release_if_idle)
                        _busy.add(self)
                        return
            finally:
                lock.release()
            if self._make(timer, True):
                return
            handle = timer._handle
        lock = self._lock
        lock.acquire()  # _hold inline
        self._active[handle] = timer
        _busy.add(self)
        lock.release()
        if timer._freed or self._ptr is None:
            status = ENOENT if timer._freed else ECLOSED
        else:
            c_handle = timer._c_handle
            if c_handle is not None:
                status = self._raw_start(self._c_ptr, c_handle)
            else:
                status = self._timer_start(self._c_ptr, handle)
        if status < 0:
            self._release_if_idle(handle)
            if timer._freed or self._ptr is None:
                timer._call("tocsin_timer_start")  # raises the error that says which
            raise error_for(status, "tocsin_timer_start")

    def _resume(self, timer: Timer) -> None:
        """``tocsin_timer_resume``, keeping the timer alive like ``_start``."""
        self._run(timer, self._timer_resume, "tocsin_timer_resume")

    def _run(self, timer: Timer, function: Any, name: str) -> None:
        if not timer._handle and not timer._freed:
            self._make(timer)
        self._hold(timer)
        try:
            self._fast_call(function, name, timer)
        except BaseException:
            self._release_if_idle(timer._handle)
            raise

    def _cancel(self, timer: Timer, releases_itself: bool) -> None:
        """``tocsin_timer_cancel``; ``releases_itself``: no STATE(CANCELED)
        will come to end the keep-alive, so end it now."""
        if not timer._handle and not timer._freed:
            self._make(timer)
        pointer = self._ptr  # _fast_call inline: cancels come in bulk
        if timer._freed or pointer is None:
            timer._call("tocsin_timer_cancel")  # raises the error that says which
        status = self._timer_cancel(pointer, timer._handle)
        if status < 0:
            raise error_for(status, "tocsin_timer_cancel")
        if releases_itself:
            self._release_if_idle(timer._handle)

    def _raw(self, name: str) -> Any:
        """A C function of the hot path, called without argtypes (see
        ``__init__``): its restype only, and no errcheck."""
        function = self._lib._FuncPtr((name, self._lib))
        function.restype = c_int
        return function

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

    def _make(self, timer: Timer, start: bool = False) -> bool:
        """Makes in C a countdown that ``countdown()`` left to be made when
        first needed, with this engine's callback, and started if ``start``
        (one C call then, tocsin_countdown_start). Every countdown left
        before it is made first, so the engine's creation order is the
        order of the ``countdown()`` calls. Returns True if it started it;
        False if it was made already (by another thread meanwhile). Raises
        the C call's error (the timer is then left to be made later)."""
        with self._lock:  # a FINISH delivered before the call returns waits for it in _deliver
            if timer._handle:
                return False
            pending = self._pending
            key = id(timer)
            if timer._freed or key not in pending:
                raise NoSuchTimerError(ENOENT, "this timer was freed")
            for earlier_key in list(pending):
                if earlier_key == key:
                    break
                # (.get and .pop: a finalizer on another thread may drop one meanwhile)
                ref = pending.get(earlier_key)
                earlier = ref() if ref is not None else None
                if earlier is not None:
                    self._make_one(earlier, False)
                else:
                    pending.pop(earlier_key, None)
            self._make_one(timer, start)
            return start

    def _make_one(self, timer: Timer, start: bool) -> None:
        """``_make`` for one timer, under the lock."""
        c_handle = c_uint64()
        seconds = timer._seconds
        if start:
            argument = self._seconds
            argument.value = seconds
            status = self._countdown_start(self._c_ptr, argument, timer._events, self._c_callback, None, byref(c_handle))
        else:
            status = self._countdown_new(self._c_ptr, seconds, c_handle)
        if status < 0:
            raise error_for(status, "tocsin_timer_start" if start else "tocsin_countdown_new")
        handle = c_handle.value
        if not start:
            status = self._raw_set_callback(self._c_ptr, c_handle, self._c_callback, None)
            if status < 0:
                self._raw_free(self._c_ptr, c_handle)
                raise error_for(status, "tocsin_timer_set_callback")
        ref = self._pending.pop(id(timer), None) or weakref.ref(timer)
        timer._c_handle = c_handle
        timer._handle = handle
        if start:
            self._active[handle] = timer  # in _timers too once its run ends (_release_if_idle)
            _busy.add(self)
        else:
            self._timers[handle] = ref

    def _make_all(self) -> None:
        """Makes every countdown left to be made (before a call that lists
        or saves the engine's timers)."""
        if self._pending:
            with self._lock:
                for key in list(self._pending):
                    ref = self._pending.get(key)
                    timer = ref() if ref is not None else None
                    if timer is None:
                        self._pending.pop(key, None)
                    elif not timer._handle:
                        self._make_one(timer, False)

    def _drop(self, timer: Timer) -> None:
        """Frees the C side of a Timer that is going away (its finalizer):
        ``_forget``, inline for the common case of a timer that is not
        running (a running one is never dropped: ``_active`` holds it,
        unless the engine goes away in the same garbage cycle)."""
        handle = timer._handle
        if not handle:  # never made in C
            self._pending.pop(id(timer), None)
            return
        self._timers.pop(handle, None)
        if handle in self._active:
            self._forget(handle, quietly=True)
        elif self._ptr is not None and not self._closed:  # closing freed every C timer already
            c_handle = timer._c_handle  # quietly: a finalizer has no one to tell
            if c_handle is not None:
                self._raw_free(self._c_ptr, c_handle)
            else:
                self._timer_free(self._c_ptr, handle)

    def _forget(self, handle: int, quietly: bool = False) -> None:
        """Frees a timer's C side (from Timer.free or its finalizer)."""
        if not handle:
            return
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
