"""Tocsin: countdowns and stopwatches on one kernel timer, from Python.

    import tocsin
    with tocsin.Engine() as engine:
        tea = engine.countdown(90, label="Tea", tick=1.0)
        tea.on_tick(lambda event: print(f"{event.remaining:5.1f}s left"))
        tea.on_finish(lambda event: print("done"))
        tea.start()

A thin ctypes binding of libtocsin.so: see the C header tocsin.h for the
exact rules (ordering, threads, never early).
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import TYPE_CHECKING

from ._calendar import calendar_check, calendar_next
from ._engine import Engine
from ._errors import (
    CalendarSpecError,
    CorruptError,
    EngineClosedError,
    InvalidArgumentError,
    NoOccurrenceError,
    NoSuchTimerError,
    TimerCancelledError,
    TocsinError,
    TocsinFileNotFoundError,
    TocsinIOError,
    TocsinIsADirectoryError,
    TocsinPermissionError,
    TocsinMemoryError,
    WrongStateError,
)
from ._library import LibraryNotFoundError, load
from ._timer import Timer
from ._values import Clock, Event, EventKind, State, TickPolicy

if TYPE_CHECKING:
    from . import aio, notify

__version__ = "0.8.0"

#: How long before its deadline a wake timer wakes the machine (tocsin.h's
#: TOCSIN_WAKE_LEAD_SECONDS).
WAKE_LEAD_SECONDS = 120.0
#: The most ticks one delivery round (a ``dispatch()``, an ``advance()``, a
#: wakeup of the engine's thread) delivers one by one; past these, each
#: timer's ticks still due in that round come as one TICK of its latest,
#: with ``event.missed`` counting the ones skipped (tocsin.h's
#: TOCSIN_TICK_BURST, BOUNDED ROUNDS).
TICK_BURST = 4096

__all__ = [
    "CalendarSpecError",
    "Clock",
    "CorruptError",
    "Engine",
    "EngineClosedError",
    "Event",
    "EventKind",
    "InvalidArgumentError",
    "LibraryNotFoundError",
    "NoOccurrenceError",
    "NoSuchTimerError",
    "State",
    "TICK_BURST",
    "TickPolicy",
    "Timer",
    "TimerCancelledError",
    "TocsinError",
    "TocsinFileNotFoundError",
    "TocsinIOError",
    "TocsinIsADirectoryError",
    "TocsinPermissionError",
    "TocsinMemoryError",
    "WAKE_LEAD_SECONDS",
    "WrongStateError",
    "aio",
    "calendar_check",
    "calendar_next",
    "library_version",
    "notify",
]

#: Submodules loaded on first use (``tocsin.aio.Engine()`` after a plain
#: ``import tocsin``), so that ``import tocsin`` neither imports asyncio nor
#: looks for libtocsin-notify.so.
_SUBMODULES = ("aio", "notify")


def __getattr__(name: str) -> ModuleType:
    if name in _SUBMODULES:
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")



def library_version(library: "str | None" = None) -> str:
    """The loaded libtocsin.so's version, e.g. "0.6.0"."""
    return str(load(library).tocsin_version().decode())
