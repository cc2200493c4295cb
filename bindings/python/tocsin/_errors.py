"""Exceptions: one per C status code, all under TocsinError."""

from __future__ import annotations

from typing import Callable, Optional

# The status codes of tocsin.h (TOCSIN_ERRNO_MAP).
EINVAL, ENOENT, ESTATE, ENOMEM, EIO, ECORRUPT, ECLOSED, EUNAVAILABLE, ERANGE = -1, -2, -3, -4, -5, -6, -7, -8, -9


class TocsinError(Exception):
    """A failed call into libtocsin. ``code`` is the C status (a negative
    TOCSIN_E* value, or 0 for failures of the binding itself) and the message
    carries the library's own text for it."""

    code: int

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code


class InvalidArgumentError(TocsinError, ValueError):
    """NaN, negative, zero or too large seconds; a bad label; a bad mode."""


class NoSuchTimerError(TocsinError, LookupError):
    """The timer was freed, never existed, or belongs to another engine."""


class WrongStateError(TocsinError):
    """Not allowed in the timer's state (e.g. resume while running) or the
    engine's mode (e.g. advance on a real clock)."""


class TocsinMemoryError(TocsinError, MemoryError):
    """Out of memory, or the engine holds the most timers it can."""


class TocsinIOError(TocsinError, OSError):
    """A system call failed (kernel timer, engine thread, file)."""


class TocsinFileNotFoundError(TocsinIOError, FileNotFoundError):
    """``Engine.load``: no file at that path (ENOENT)."""


class TocsinPermissionError(TocsinIOError, PermissionError):
    """``Engine.load`` or ``save``: not allowed to read or write it (EACCES, EPERM)."""


class TocsinIsADirectoryError(TocsinIOError, IsADirectoryError):
    """``Engine.load``: the path is a folder (EISDIR)."""


def file_error(function: str, number: int, path: "str | bytes") -> TocsinIOError:
    """TOCSIN_EIO from a call on a file, as the OSError its errno makes: the
    class (FileNotFoundError, PermissionError, ... as well as
    TocsinIOError), ``errno``, ``strerror`` and ``filename`` set."""
    import errno as codes
    import os

    kind: type[TocsinIOError] = {
        codes.ENOENT: TocsinFileNotFoundError, codes.EACCES: TocsinPermissionError,
        codes.EPERM: TocsinPermissionError, codes.EISDIR: TocsinIsADirectoryError,
    }.get(number, TocsinIOError)
    name = os.fsdecode(path)
    text = os.strerror(number) if number else "input/output error"
    error = kind(EIO, f"{function}: {text}: {name!r}")
    error.errno, error.strerror, error.filename = (number or None), text, name
    return error


class CalendarSpecError(InvalidArgumentError):
    """A calendar spec that does not parse, or names an unknown time zone.
    ``column`` (from 1) is where the fault starts; the message says what it
    is, as tocsin_calendar_check() does."""

    column: int
    spec: str

    def __init__(self, message: str, column: int, spec: str) -> None:
        super().__init__(EINVAL, message)
        self.column = column
        self.spec = spec


class NoOccurrenceError(TocsinError, ValueError):
    """A calendar spec with no occurrence after the time asked
    (TOCSIN_ERANGE): "2020-01-01 00:00" asked after 2020."""


class CorruptError(TocsinError):
    """Corrupt or unsupported data."""


class EngineClosedError(TocsinError):
    """The engine is closed."""


class UnavailableError(TocsinError):
    """A desktop service is missing: session bus, notification or sound server."""


class TimerCancelledError(TocsinError):
    """Awaited the end of a run that was cancelled instead of finishing."""


_BY_CODE: dict[int, type[TocsinError]] = {
    EINVAL: InvalidArgumentError,
    ENOENT: NoSuchTimerError,
    ESTATE: WrongStateError,
    ENOMEM: TocsinMemoryError,
    EIO: TocsinIOError,
    ECORRUPT: CorruptError,
    ECLOSED: EngineClosedError,
    EUNAVAILABLE: UnavailableError,
    ERANGE: NoOccurrenceError,
}

_strerror: Optional[Callable[[int], bytes]] = None


def set_strerror(function: Callable[[int], bytes]) -> None:
    global _strerror
    _strerror = function


#: C functions whose Python spelling is not the rule of ``python_name``.
_PYTHON_NAMES = {
    "tocsin_countdown_new": "Engine.countdown()", "tocsin_stopwatch_new": "Engine.stopwatch()",
    "tocsin_alarm_new": "Engine.alarm()", "tocsin_calendar_new": "Engine.calendar()",
    "tocsin_countdown_start": "Engine.after()", "tocsin_timer_set_label": "Timer.label",
    "tocsin_timer_label": "Timer.label", "tocsin_timer_set_callback": "Timer.on()",
    "tocsin_calendar_next": "tocsin.calendar_next()", "tocsin_engine_new": "tocsin.Engine()",
}


def python_name(function: str) -> str:
    """The call a Python program made, for a C function's name:
    tocsin_timer_set_tick -> Timer.set_tick(), tocsin_engine_advance ->
    Engine.advance(); other names are kept."""
    if function in _PYTHON_NAMES:
        return _PYTHON_NAMES[function]
    for prefix, owner in (("tocsin_timer_", "Timer"), ("tocsin_engine_", "Engine"), ("tocsin_calendar_", "Timer")):
        if function.startswith(prefix):
            return f"{owner}.{function[len(prefix):]}()"
    return function


def error_for(code: int, function: str = "") -> TocsinError:
    """The exception for a negative status, with the library's message,
    naming the Python call that failed."""
    text = _strerror(code).decode() if _strerror is not None else f"status {code}"
    where = f"{python_name(function)}: " if function else ""
    return _BY_CODE.get(code, TocsinError)(code, f"{where}{text}")


def seconds_error(code: int, function: str, given: object) -> TocsinError:
    """The exception for a call that takes a span of seconds: TOCSIN_EINVAL
    says what the value must be, and what it was."""
    if code != EINVAL:
        return error_for(code, function)
    return InvalidArgumentError(code, f"{function}: seconds must be a finite number above 0, at most 100 years; "
                                      f"got {given!r}")
