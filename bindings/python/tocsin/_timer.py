"""Timer: one countdown or stopwatch in an Engine, and its events."""

from __future__ import annotations

import asyncio
from ctypes import byref, c_double, c_uint64, create_string_buffer
from typing import TYPE_CHECKING, Any, AsyncIterator, Callable, Optional

from ._errors import InvalidArgumentError, NoSuchTimerError, TimerCancelledError, TocsinError, WrongStateError
from ._values import (
    EVENTS_ALL,
    EVENTS_STATE,
    Clock,
    Event,
    EventKind,
    Handler,
    Seconds,
    State,
    TickPolicy,
    encode_label,
    to_clock,
    to_seconds,
    to_tick_policy,
    to_unix_time,
)

if TYPE_CHECKING:
    from datetime import datetime

    from ._engine import Engine

_new_object = object.__new__

#: A timer's handlers until it gets some: shared, as handler maps are
#: replaced, never mutated.
_NO_HANDLERS: "dict[Optional[EventKind], tuple[Handler, ...]]" = {}


class Timer:
    """A countdown, stopwatch, alarm or calendar alarm: made by
    ``engine.countdown()``, ``engine.stopwatch()``, ``engine.alarm()``,
    ``engine.calendar()`` and ``engine.after()``, never directly. Every
    method may be called from any thread.

    While running or suspended the engine keeps the timer alive, so
    ``engine.countdown(5).start()`` fires even if nothing else refers to it;
    otherwise it is freed when its last reference goes (or by ``free()``).
    """

    # Every C call goes through the Engine (see "Timer's way in" there). The
    # Engine reads _handle, _freed, _handlers, _once, _once_args and _events
    # (to deliver events and check calls); only this class writes them, but
    # for the handle Engine.after gets from its C call.
    __slots__ = (
        "_engine", "_handle", "_c_handle", "_seconds", "_freed", "_handlers", "_deferred", "_events", "_once", "_once_args",
        "__weakref__",
    )
    if TYPE_CHECKING:  # for mypy only: help() shows no private annotations
        _engine: Engine
        _handle: int
        _c_handle: Optional[c_uint64]
        _seconds: float
        _freed: bool
        _deferred: bool
        _handlers: dict[Optional[EventKind], tuple[Handler, ...]]
        _once: Optional[Callable[..., object]]
        _once_args: tuple[object, ...]
        _events: int

    def __init__(self) -> None:
        raise TypeError("a tocsin.Timer is made by its engine: engine.countdown(), engine.stopwatch(), "
                        "engine.alarm(), engine.calendar() or engine.after()")

    @classmethod
    def _made(
        cls, engine: "Engine", handle: int, c_handle: Optional[c_uint64], deferred: bool = False,
        once: "Optional[Callable[..., object]]" = None, once_args: tuple[object, ...] = (), events: int = EVENTS_ALL,
    ) -> "Timer":
        """The Engine's constructor (arguments by position on Engine.after's
        path, the binding's per-timer hot path: keywords cost it more)."""
        self = object.__new__(cls)
        self._engine = engine
        self._handle = handle
        # The handle as C takes it, for calls without argtypes (the engine's
        # hot path): the out-parameter it was made into, or None (the
        # engine then passes _handle with argtypes). 0 and None for a
        # countdown not made in C yet (Engine._make makes it when first
        # needed; _seconds is then its duration).
        self._c_handle = c_handle
        self._freed = False
        # Restored from a file and not running: its C callback is set with the
        # first handler, so a FINISH held since the program was away reaches it.
        self._deferred = deferred
        # kind (or None: every kind) -> handlers; replaced, never mutated, so
        # the delivery thread can read it while another thread adds to it.
        self._handlers = _NO_HANDLERS
        # Engine.after()'s handler and its extra arguments, called on FINISH
        # before the others: kept apart so that a one-shot costs no dict.
        self._once = once
        self._once_args = once_args
        # The TOCSIN_EVENTS_* bits its C callback is given: FINISH, plus what
        # its handlers want (only ever grows; see _want).
        self._events = events
        return self

    @staticmethod
    def _pending(engine: "Engine", seconds: float) -> "Timer":
        """``_made`` for a countdown of ``seconds`` not made in C yet
        (Engine.countdown's hot path: two arguments, no defaults)."""
        self = _new_object(Timer)
        self._engine = engine
        self._handle = 0
        self._c_handle = None
        self._seconds = seconds
        self._freed = False
        self._deferred = False
        self._handlers = _NO_HANDLERS
        self._once = None
        self._once_args = ()
        self._events = EVENTS_ALL
        return self

    def _mark_freed(self) -> None:
        """The C timer is gone (or was never made): later calls raise."""
        self._freed = True

    # -- identity --------------------------------------------------------

    @property
    def handle(self) -> int:
        """The C handle (``tocsin_timer``)."""
        if not self._handle and not self._freed:
            self._engine._make(self)
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
        if not self._handle:
            self._engine._make(self)
        return self._engine._call(name, self._handle, *args)

    def _double(self, name: str) -> float:
        out = c_double()
        self._call(name, byref(out))
        return out.value

    # -- state changes -----------------------------------------------------

    def start(self) -> "Timer":
        """Starts (or restarts) from the full duration. Returns self. Raises
        WrongStateError while it runs or is paused ("Tea is running: ...")."""
        if self._deferred:
            self._listen_if_deferred()
        try:
            self._engine._start(self)
        except WrongStateError as error:
            raise self._explained(error, "start") from None
        return self

    def suspend(self) -> "Timer":
        """Holds the time exactly where it is. Returns self. Raises
        WrongStateError unless it runs ("Tea is already paused")."""
        try:
            self._call("tocsin_timer_suspend")
        except WrongStateError as error:
            raise self._explained(error, "pause") from None
        return self

    def resume(self) -> "Timer":
        """Carries on from the time held. Returns self. Raises
        WrongStateError unless it is suspended."""
        if self._deferred:
            self._listen_if_deferred()
        try:
            self._engine._resume(self)
        except WrongStateError as error:
            raise self._explained(error, "resume") from None
        return self

    def cancel(self) -> "Timer":
        """Cancels a running or suspended timer: no tick or finish of the run
        follows. Returns self. Raises WrongStateError otherwise."""
        try:
            self._engine._cancel(self, not self._events & EVENTS_STATE)
        except WrongStateError as error:
            raise self._explained(error, "cancel") from None
        return self

    def _explained(self, error: TocsinError, call: str, seconds: Optional[float] = None) -> TocsinError:
        """``error`` of ``call`` in words that name the timer, its state and
        the value, as the command and the service say it; the same class and
        code."""
        try:
            name, state, left = self.label or "this timer", self.state, self.remaining
        except TocsinError:
            return error
        words = {State.IDLE: "has not started", State.RUNNING: "is running", State.SUSPENDED: "is paused",
                 State.FINISHED: "has finished", State.CANCELED: "was cancelled"}[state]
        text = None
        if call == "start":
            text = f"{name} {words}: only an idle, finished or cancelled timer can be started (cancel it first)"
        elif call == "pause":
            text = f"{name} is already paused" if state is State.SUSPENDED else f"{name} {words}: only a running timer can be paused"
        elif call == "resume":
            text = f"{name} is already running" if state is State.RUNNING else f"{name} {words}: only a paused timer can be resumed"
        elif call == "cancel":
            text = f"{name} {words}: only a running or paused timer can be cancelled"
        elif call == "lap":
            text = f"{name} {words}: laps are taken while it runs or is paused"
        elif seconds is not None:
            if seconds != seconds or seconds in (0.0, float("inf"), float("-inf")):
                text = f"adjust takes a finite number of seconds other than 0, got {seconds!r}"
            elif left is None:
                text = f"{name} is a stopwatch: only countdowns and alarms can be adjusted"
            elif state is State.CANCELED:
                text = f"{name} was cancelled: restart it first"
            elif state is State.FINISHED and seconds < 0:
                text = f"{name} has finished: only added time (seconds > 0) runs it again"
            elif seconds < 0 and -seconds >= left:
                text = f"{name} has {left:.3f} s left; {seconds:g} s would end it before now: cancel it, or take off less"
        method = "suspend" if call == "pause" else call
        return error if text is None else type(error)(error.code, f"{method}(): {text}")

    def _listen_if_deferred(self) -> None:
        """A restored timer's events are wanted from now on."""
        if self._deferred:
            self._deferred = False
            self._engine._listen(self._handle)

    def adjust(self, seconds: Seconds) -> "Timer":
        """Adds ``seconds`` to a countdown's current run (negative: takes
        them off); remaining time and the finish move with it. Running: a
        countdown shortened to its elapsed time or less finishes now, but
        a new duration of zero or less raises InvalidArgumentError and it
        runs on (cut it by ``remaining`` to end it now, once some time has
        run: a cut of the whole duration is zero).
        Finished: positive seconds run it again with that much left ("one
        more minute"). A restart from finished or cancelled runs the
        original duration again. Its handlers get a STATE event with the new
        ``remaining``. Raises InvalidArgumentError (stopwatch, zero, the
        new duration not above the elapsed time while idle or suspended,
        zero or less, or over 100 years) or WrongStateError (cancelled).
        Returns self."""
        delta = to_seconds(seconds)
        try:
            self._call("tocsin_timer_adjust", delta)
        except (InvalidArgumentError, WrongStateError) as error:
            raise self._explained(error, "adjust", delta) from None
        return self

    def lap(self) -> float:
        """Records a lap; returns its length in seconds."""
        try:
            return self._double("tocsin_timer_lap")
        except WrongStateError as error:
            raise self._explained(error, "lap") from None

    def free(self) -> None:
        """Frees the timer now; later calls raise NoSuchTimerError. Freeing
        twice does nothing."""
        if self._freed:
            return
        self._freed = True
        if self._handle:
            self._engine._forget(self._handle)
        else:
            self._engine._drop(self)  # never made in C

    def __del__(self) -> None:
        if not getattr(self, "_freed", True):
            self._freed = True
            self._engine._drop(self)

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

    def set_tick_policy(self, policy: "TickPolicy | str") -> "Timer":
        """``TickPolicy.COALESCE`` (or "coalesce"): ticks all due at once
        (after a stall, a suspend, a long advance) come as one TICK for the
        latest, with ``event.missed`` the number skipped. ``EVERY`` (the
        default): each one. Returns self."""
        self._call("tocsin_timer_set_tick_policy", int(to_tick_policy(policy)))
        return self

    def set_leeway(self, seconds: Optional[Seconds]) -> "Timer":
        """Lets the timer's ticks and finish come up to ``seconds`` late
        (None or 0: never), so that timers share the engine's wake-ups:
        each event falls due at the first multiple of ``seconds`` on the
        boot clock at or after its deadline. Never early; ``event.lateness``
        still counts from the deadline. At most a day. Returns the timer."""
        self._call("tocsin_timer_set_leeway", 0.0 if seconds is None else to_seconds(seconds))
        return self

    @property
    def leeway(self) -> float:
        """The timer's leeway in seconds (0.0 if none)."""
        return self._double("tocsin_timer_leeway")

    def set_wake(self, wake: bool = True) -> "Timer":
        """Makes a countdown, alarm or calendar alarm wake a suspended
        machine 2 minutes (``tocsin.WAKE_LEAD_SECONDS``) before it is due,
        where the process may (``engine.can_wake()``); it rings at its own
        time either way. Not on a stopwatch or an AWAKE timer. Returns the
        timer."""
        if not isinstance(wake, bool):
            raise InvalidArgumentError(-1, f"wake must be True or False, not {wake!r}")
        self._call("tocsin_timer_set_wake", int(wake))
        return self

    @property
    def wakes(self) -> bool:
        """True if the timer wakes a suspended machine."""
        return self._call("tocsin_timer_wake") == 1

    def set_clock(self, clock: "Clock | str") -> "Timer":
        """Puts an idle timer on a clock: ``"boot"`` (the default) counts
        real time, suspends of the machine included; ``"awake"`` only time
        the machine is awake (a suspend pauses it). Not ``"awake"`` on an
        alarm. Returns the timer."""
        self._call("tocsin_timer_set_clock", int(to_clock(clock)))
        return self

    @property
    def clock(self) -> Clock:
        return Clock(self._call("tocsin_timer_clock"))

    @property
    def alarm_time(self) -> Optional[float]:
        """An alarm's wall-clock time (a Unix time); None for other timers."""
        try:
            return self._double("tocsin_timer_alarm_time")
        except InvalidArgumentError:  # not an alarm
            return None

    @property
    def calendar(self) -> Optional[str]:
        """A calendar alarm's spec, normalized ("Mon..Fri *-*-* 07:00:00");
        None for other timers. ``alarm_time`` is its coming occurrence."""
        try:
            length = self._call("tocsin_timer_calendar", None, 0)
        except InvalidArgumentError:  # not a calendar alarm
            return None
        buffer = create_string_buffer(length + 1)
        self._call("tocsin_timer_calendar", buffer, length + 1)
        return buffer.value.decode("utf-8")

    def skip(self, count: int = 1) -> "Timer":
        """Skips a calendar alarm's next ``count`` rings (from its coming
        one) without removing it: they do not ring, are not counted as
        missed and do not wake the machine; ``alarm_time`` is the ring that
        will come. The skip is kept across clock changes and save/load.
        Raises ``InvalidArgumentError`` for another kind of timer,
        ``NoOccurrenceError`` if no ring would be left. Returns self."""
        if count < 1:
            raise InvalidArgumentError(-1, f"Timer.skip(): count must be at least 1, got {count}")
        try:
            self._call("tocsin_calendar_skip", count)
        except InvalidArgumentError as error:
            what = "at most 100,000 rings" if self.calendar else "a calendar alarm's rings only: this timer has none"
            raise InvalidArgumentError(error.code, f"Timer.skip(): {what}; got {count}") from None
        return self

    def skip_until(self, when: "float | int | datetime") -> "Timer":
        """Skips every ring of a calendar alarm before ``when`` (a Unix time,
        or a datetime: a naive one is local time), in place of any skip
        before; as ``skip`` otherwise. Returns self."""
        self._call("tocsin_calendar_skip_until", to_unix_time(when))
        return self

    def clear_skip(self) -> "Timer":
        """Undoes a skip: the alarm comes to its next occurrence after now
        again. Returns self."""
        self._call("tocsin_calendar_skip", 0)
        return self

    @property
    def skipped_until(self) -> Optional[float]:
        """The wall-clock time (a Unix time) before which a calendar alarm's
        rings are skipped; None when none is."""
        out = c_double()
        return out.value if self._call("tocsin_calendar_skipped_until", byref(out)) == 1 else None

    def set_tick(self, interval: Optional[Seconds]) -> "Timer":
        """A TICK event every ``interval`` seconds of running time (None or 0:
        no ticks). Returns self."""
        try:
            self._call("tocsin_timer_set_tick", 0.0 if interval is None else to_seconds(interval))
        except InvalidArgumentError as error:
            raise InvalidArgumentError(error.code, "Timer.set_tick(): the interval is None or 0 (no ticks), or a finite "
                                                   f"number of seconds up to 100 years; got {interval!r}") from None
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
        self._listen_if_deferred()
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
