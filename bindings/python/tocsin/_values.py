"""The binding's values: seconds, labels, states, event kinds and events.
A leaf module: it knows no engine, timer or library, so every other
module may import it."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, Callable, Optional, TypeVar, Union

from ._errors import InvalidArgumentError

if TYPE_CHECKING:
    from ._timer import Timer

Seconds = Union[float, int, timedelta]
Handler = Callable[["Event"], object]


class State(enum.IntEnum):
    """A timer's state (TOCSIN_IDLE ... TOCSIN_CANCELED)."""

    IDLE = 0
    RUNNING = 1
    SUSPENDED = 2
    FINISHED = 3
    CANCELED = 4

    def __str__(self) -> str:
        """The word the command and the service use: "running", "canceled"."""
        return self.name.lower()

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)


class EventKind(enum.IntEnum):
    """What an event reports (TOCSIN_EVENT_*)."""

    TICK = 1
    STATE = 2
    FINISH = 3


class TickPolicy(enum.IntEnum):
    """What happens to ticks all due at once (TOCSIN_TICKS_*): EVERY delivers
    each, up to ``tocsin.TICK_BURST`` in one round; COALESCE delivers one
    TICK for the latest, with ``missed`` set."""

    EVERY = 0
    COALESCE = 1


class Clock(enum.IntEnum):
    """Which time a timer counts (TOCSIN_CLOCK_*): BOOT counts real time,
    suspends of the machine included; AWAKE only time the machine is awake."""

    BOOT = 0
    AWAKE = 1


#: TOCSIN_EVENTS_* bits: the event kinds a timer's C callback is given.
EVENTS_TICK, EVENTS_STATE, EVENTS_FINISH = 1 << EventKind.TICK, 1 << EventKind.STATE, 1 << EventKind.FINISH
EVENTS_ALL = EVENTS_TICK | EVENTS_STATE | EVENTS_FINISH


@dataclass(frozen=True)
class Event:
    """One event of a timer, as its handlers receive it.

    ``elapsed`` is running time in seconds (exactly ``tick`` x interval on a
    tick); ``remaining`` is the countdown's time left (None for a stopwatch);
    ``lateness`` is how long after its due time the event was delivered;
    ``missed``, on a TICK of a timer whose ticks coalesce, or one that
    folds the ticks a round could not deliver (``tocsin.TICK_BURST``), is
    how many ticks before this one were skipped (0 otherwise)."""

    kind: EventKind
    state: State
    timer: "Timer"
    elapsed: float
    remaining: Optional[float]
    tick: int
    lateness: float
    missed: int = 0


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
        "missed": raw.missed,
    })
    return event


def to_seconds(value: Seconds) -> float:
    """Seconds from a number or a timedelta."""
    if isinstance(value, timedelta):
        return value.total_seconds()
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InvalidArgumentError(-1, f"seconds must be a number or timedelta, not {type(value).__name__}")
    return float(value)


def encode_label(value: Optional[str]) -> Optional[bytes]:
    if value is None:
        return None
    if not isinstance(value, str):
        raise InvalidArgumentError(-1, f"label must be str, not {type(value).__name__}")
    if "\0" in value:
        raise InvalidArgumentError(-1, "label must not contain NUL")
    try:
        encoded = value.encode("utf-8")
    except UnicodeEncodeError as error:
        raise InvalidArgumentError(-1, f"label is not valid UTF-8: {error}") from None
    if len(encoded) > LABEL_MAX_BYTES:
        raise InvalidArgumentError(
            -1, f"label is {len(encoded):,} bytes of UTF-8; at most {LABEL_MAX_BYTES:,} (tocsin.h's TOCSIN_LABEL_MAX)")
    return encoded


#: The longest label, in bytes of UTF-8 (tocsin.h's TOCSIN_LABEL_MAX).
LABEL_MAX_BYTES = 4096


_Named = TypeVar("_Named", TickPolicy, Clock)


def _by_name(kind: "type[_Named]", value: "_Named | str", what: str) -> _Named:
    """A member of ``kind`` from itself or its name, any case."""
    if isinstance(value, kind):
        return value
    if isinstance(value, str) and value.upper() in kind.__members__:
        return kind[value.upper()]
    names = " or ".join(repr(name.lower()) for name in kind.__members__)
    raise InvalidArgumentError(-1, f"{what} must be a {kind.__name__}, {names}, not {value!r}")


def to_tick_policy(value: "TickPolicy | str") -> TickPolicy:
    """A TickPolicy from itself or its name ("every", "coalesce")."""
    return _by_name(TickPolicy, value, "tick policy")


def to_clock(value: "Clock | str") -> Clock:
    """A Clock from itself or its name ("boot", "awake")."""
    return _by_name(Clock, value, "clock")


def to_unix_time(value: "float | int | datetime") -> float:
    """Seconds since 1970-01-01 00:00 UTC from a number or a datetime (a
    naive one is local time, as ``datetime.timestamp`` takes it)."""
    if isinstance(value, datetime):
        return value.timestamp()
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InvalidArgumentError(-1, f"a time must be a Unix time or a datetime, not {type(value).__name__}")
    return float(value)
