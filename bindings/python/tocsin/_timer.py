"""Timer: one countdown or stopwatch in an Engine, and its events."""

from __future__ import annotations

import asyncio
import enum
from ctypes import byref, c_double, create_string_buffer
from dataclasses import dataclass
from datetime import timedelta
from typing import TYPE_CHECKING, Any, AsyncIterator, Callable, Optional, Union

from ._errors import InvalidArgumentError, NoSuchTimerError, TimerCancelledError, error_for

if TYPE_CHECKING:
    from ._engine import Engine

Seconds = Union[float, int, timedelta]
Handler = Callable[["Event"], object]

#: A timer's handlers until it gets some: shared, as handler maps are
#: replaced, never mutated.
_NO_HANDLERS: "dict[Optional[EventKind], tuple[Handler, ...]]" = {}


class State(enum.IntEnum):
    """A timer's state (TOCSIN_IDLE ... TOCSIN_CANCELED)."""

    IDLE = 0
    RUNNING = 1
    SUSPENDED = 2
    FINISHED = 3
    CANCELED = 4


class EventKind(enum.IntEnum):
    """What an event reports (TOCSIN_EVENT_*)."""

    TICK = 1
    STATE = 2
    FINISH = 3


#: TOCSIN_EVENTS_* bits: the event kinds a timer's C callback is given.
EVENTS_TICK, EVENTS_STATE, EVENTS_FINISH = 1 << EventKind.TICK, 1 << EventKind.STATE, 1 << EventKind.FINISH
EVENTS_ALL = EVENTS_TICK | EVENTS_STATE | EVENTS_FINISH


@dataclass(frozen=True)
class Event:
    """One event of a timer, as its handlers receive it.

    ``elapsed`` is running time in seconds (exactly ``tick`` x interval on a
    tick); ``remaining`` is the countdown's time left (None for a stopwatch);
    ``lateness`` is how long after its due time the event was delivered."""

    kind: EventKind
    state: State
    timer: "Timer"
    elapsed: float
    remaining: Optional[float]
    tick: int
    lateness: float


_KINDS = {kind.value: kind for kind in EventKind}
_STATES = {state.value: state for state in State}


def event_from(raw: Any, timer: "Timer") -> Event:
    """The Event of a C ``tocsin_event``. Every delivery builds one, so it
    skips the frozen dataclass's ``__init__`` (seven ``object.__setattr__``
    calls) and the enum constructors: ~2 µs less per event."""
    kind, state = _KINDS.get(raw.kind), _STATES.get(raw.state)
    event = object.__new__(Event)
    object.__setattr__(event, "__dict__", {
        "kind": EventKind(raw.kind) if kind is None else kind,  # unknown: ValueError
        "state": State(raw.state) if state is None else state,
        "timer": timer,
        "elapsed": raw.elapsed,
        "remaining": None if raw.remaining < 0 else raw.remaining,
        "tick": raw.tick,
        "lateness": raw.lateness,
    })
    return event


def to_seconds(value: Seconds) -> float:
    """Seconds from a number or a timedelta."""
    if isinstance(value, timedelta):
        return value.total_seconds()
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InvalidArgumentError(-1, f"seconds must be a number or timedelta, not {type(value).__name__}")
    return float(value)


class Timer:
    """A countdown or stopwatch. Made by ``Engine.countdown`` and
    ``Engine.stopwatch``; every method may be called from any thread.

    While running or suspended the engine keeps the timer alive, so
    ``engine.countdown(5).start()`` fires even if nothing else refers to it;
    otherwise it is freed when its last reference goes (or by ``free()``).
    """

    __slots__ = (
        "_engine", "_handle", "_freed", "_handlers", "_deferred", "_events", "_once", "_once_args", "__weakref__"
    )

    def __init__(self, engine: "Engine", handle: int) -> None:
        self._engine = engine
        self._handle = handle
        self._freed = False
        # Restored from a file and not running: its C callback is set with the
        # first handler, so a FINISH held since the program was away reaches it.
        self._deferred = False
        # kind (or None: every kind) -> handlers; replaced, never mutated, so
        # the delivery thread can read it while another thread adds to it.
        self._handlers = _NO_HANDLERS
        # Engine.after()'s handler and its extra arguments, called on FINISH
        # before the others: kept apart so that a one-shot costs no dict.
        self._once: Optional[Callable[..., object]] = None
        self._once_args: tuple[object, ...] = ()
        # The TOCSIN_EVENTS_* bits its C callback is given: FINISH, plus what
        # its handlers want (only ever grows; see _want).
        self._events = EVENTS_ALL

    # -- identity --------------------------------------------------------

    @property
    def handle(self) -> int:
        """The C handle (``tocsin_timer``)."""
        return self._handle

    @property
    def engine(self) -> "Engine":
        return self._engine

    def __repr__(self) -> str:
        if self._freed:
            return f"<tocsin.Timer {self._handle:#x} freed>"
        try:
            return f"<tocsin.Timer {self.label!r} {self.state.name.lower()} {self._handle:#x}>"
        except Exception:
            return f"<tocsin.Timer {self._handle:#x}>"

    # -- C calls -----------------------------------------------------------

    def _call(self, name: str, *args: object) -> int:
        if self._freed:
            raise NoSuchTimerError(-2, f"{name}: this timer was freed")
        return self._engine._call(name, self._handle, *args)

    def _fast_call(self, function: Any, name: str) -> None:
        """A C call on this timer through a function the engine has cached:
        no lookup by name, no argument packing (start and cancel come in bulk)."""
        pointer = self._engine._ptr
        if self._freed or pointer is None:
            self._call(name)  # raises the error that says which
        status = function(pointer, self._handle)
        if status < 0:
            raise error_for(status, name)

    def _double(self, name: str) -> float:
        out = c_double()
        self._call(name, byref(out))
        return out.value

    # -- state changes -----------------------------------------------------

    def start(self) -> "Timer":
        """Starts (or restarts) from the full duration. Returns self."""
        return self._run(self._engine._timer_start, "tocsin_timer_start")

    def suspend(self) -> "Timer":
        """Holds the time exactly where it is. Returns self."""
        self._call("tocsin_timer_suspend")
        return self

    def resume(self) -> "Timer":
        """Carries on from the time held. Returns self."""
        return self._run(self._engine._timer_resume, "tocsin_timer_resume")

    def _run(self, function: Any, name: str) -> "Timer":
        """Starts or resumes, with the engine keeping the timer alive from
        before the call (its run may end before the call returns)."""
        if self._deferred:  # its events are wanted from now on
            self._deferred = False
            self._engine._call("tocsin_timer_set_callback", self._handle, self._engine._callback_address, None)
        self._engine._hold(self)
        try:
            self._fast_call(function, name)
        except BaseException:
            self._engine._release_if_idle(self._handle)
            raise
        return self

    def cancel(self) -> "Timer":
        """Cancels a running or suspended timer: no tick or finish of the run
        follows. Returns self."""
        self._fast_call(self._engine._timer_cancel, "tocsin_timer_cancel")
        if not self._events & EVENTS_STATE:  # no STATE(CANCELED) will come to release it
            self._engine._release_if_idle(self._handle)
        return self

    def lap(self) -> float:
        """Records a lap; returns its length in seconds."""
        return self._double("tocsin_timer_lap")

    def free(self) -> None:
        """Frees the timer now; later calls raise NoSuchTimerError. Freeing
        twice does nothing."""
        if self._freed:
            return
        self._freed = True
        self._engine._forget(self._handle)

    def __del__(self) -> None:
        if not getattr(self, "_freed", True):
            self._freed = True
            self._engine._forget(self._handle, quietly=True)

    # -- properties --------------------------------------------------------

    @property
    def state(self) -> State:
        return State(self._call("tocsin_timer_state"))

    @property
    def elapsed(self) -> float:
        """Seconds of running time in the current run (suspended time excluded)."""
        return self._double("tocsin_timer_elapsed")

    @property
    def remaining(self) -> Optional[float]:
        """Countdown: seconds left. Stopwatch: None."""
        value = self._double("tocsin_timer_remaining")
        return None if value < 0 else value

    @property
    def duration(self) -> Optional[float]:
        """Countdown: its duration in seconds. Stopwatch: None."""
        value = self._double("tocsin_timer_duration")
        return None if value < 0 else value

    @property
    def is_stopwatch(self) -> bool:
        return self.duration is None

    @property
    def label(self) -> str:
        length = self._call("tocsin_timer_label", None, 0)
        buffer = create_string_buffer(length + 1)
        self._call("tocsin_timer_label", buffer, length + 1)
        return buffer.value.decode("utf-8")

    @label.setter
    def label(self, value: Optional[str]) -> None:
        self._call("tocsin_timer_set_label", encode_label(value))

    def set_tick(self, interval: Optional[Seconds]) -> "Timer":
        """A TICK event every ``interval`` seconds of running time (None or 0:
        no ticks). Returns self."""
        self._call("tocsin_timer_set_tick", 0.0 if interval is None else to_seconds(interval))
        return self

    @property
    def laps(self) -> list[float]:
        """Lap lengths of the current run, oldest first."""
        count = self._call("tocsin_timer_laps", None, 0)
        buffer = (c_double * max(count, 1))()
        count = self._call("tocsin_timer_laps", buffer, count)
        return list(buffer[:count])

    # -- handlers ------------------------------------------------------------

    def on_tick(self, handler: Handler) -> Handler:
        """Calls ``handler(event)`` on every TICK. Returns the handler, so it
        works as a decorator. Handlers run where the engine's mode says."""
        return self._add_handler(EventKind.TICK, handler)

    def on_finish(self, handler: Handler) -> Handler:
        return self._add_handler(EventKind.FINISH, handler)

    def on_state(self, handler: Handler) -> Handler:
        return self._add_handler(EventKind.STATE, handler)

    def on_event(self, handler: Handler) -> Handler:
        """Calls ``handler(event)`` on every event of this timer."""
        return self._add_handler(None, handler)

    def remove_handler(self, handler: Handler) -> None:
        """Removes a handler (compared with ==, so ``list.append`` works)."""
        if self._once is not None and self._once == handler:
            self._once = None
        self._handlers = {
            kind: tuple(h for h in handlers if h != handler) for kind, handlers in self._handlers.items()
        }

    def _add_handler(self, kind: Optional[EventKind], handler: Handler) -> Handler:
        if not callable(handler):
            raise InvalidArgumentError(-1, "handler must be callable")
        handlers = dict(self._handlers)
        handlers[kind] = handlers.get(kind, ()) + (handler,)
        self._handlers = handlers
        self._want(EVENTS_ALL if kind is None else 1 << kind)
        if self._deferred:
            self._deferred = False
            self._engine._call("tocsin_timer_set_callback", self._handle, self._engine._callback_address, None)
        return handler

    def _want(self, events: int) -> None:
        """Asks the engine for these kinds of event too."""
        if events & ~self._events and not self._freed:
            self._events |= events
            self._call("tocsin_timer_set_events", self._events)

    # -- desktop alerts ------------------------------------------------------

    def notify_on_finish(self, **options: object) -> "Timer":
        """Shows a desktop alert and plays the alarm sound each time this timer
        finishes (see ``tocsin.notify.Notifier.attach`` for the options:
        summary, body, icon, sound, repeat, urgency, popup, actions).
        Uses the shared notifier ``tocsin.notify.default()``. Returns self."""
        from . import notify

        notify.default().attach(self, **options)  # type: ignore[arg-type]
        return self

    # -- asyncio -------------------------------------------------------------

    async def finished(self) -> Event:
        """Waits until the timer finishes (the current run, or the next one if
        it is idle) and returns its FINISH event. Raises TimerCancelledError
        if the run is cancelled first. Works with every engine mode."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Event] = loop.create_future()

        def resolve(event: Event) -> None:
            if future.done():
                return
            if event.kind is EventKind.FINISH:
                future.set_result(event)
            elif event.kind is EventKind.STATE and event.state is State.CANCELED:
                future.set_exception(TimerCancelledError(0, f"{self!r} was cancelled before it finished"))

        handler = self._add_handler(None, lambda event: _call_soon(loop, resolve, event))
        try:
            if self.state is State.FINISHED:  # after registering: nothing slips between
                duration = self.duration or 0.0
                resolve(Event(EventKind.FINISH, State.FINISHED, self, duration, 0.0, 0, 0.0))
            return await future
        finally:
            self.remove_handler(handler)

    async def events(self) -> AsyncIterator[Event]:
        """Yields this timer's events until its run ends (STATE FINISHED or
        CANCELED, which is yielded last). Works with every engine mode."""
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[Event] = asyncio.Queue()
        handler = self._add_handler(None, lambda event: _call_soon(loop, queue.put_nowait, event))
        try:
            while True:
                event = await queue.get()
                yield event
                if event.kind is EventKind.STATE and event.state in (State.FINISHED, State.CANCELED):
                    return
        finally:
            self.remove_handler(handler)


def _call_soon(loop: asyncio.AbstractEventLoop, function: Callable[[Event], None], event: Event) -> None:
    """Hands an event to the loop's thread; dropped if the loop is closed."""
    try:
        loop.call_soon_threadsafe(function, event)
    except RuntimeError:
        pass


def encode_label(value: Optional[str]) -> Optional[bytes]:
    if value is None:
        return None
    if not isinstance(value, str):
        raise InvalidArgumentError(-1, f"label must be str, not {type(value).__name__}")
    if "\0" in value:
        raise InvalidArgumentError(-1, "label must not contain NUL")
    try:
        return value.encode("utf-8")
    except UnicodeEncodeError as error:
        raise InvalidArgumentError(-1, f"label is not valid UTF-8: {error}") from None
