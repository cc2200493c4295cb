"""Calendar specs (systemd.time(7)'s calendar events) without an engine:
the next occurrence, and a spec checked and normalized. The rules are
tocsin.h's (CALENDAR ALARMS)."""

from __future__ import annotations

import re
import time
from ctypes import byref, c_double, create_string_buffer
from datetime import datetime, timezone
from typing import Optional, overload

from . import _library
from ._errors import EINVAL, ERANGE, CalendarSpecError, InvalidArgumentError, NoOccurrenceError, error_for
from ._values import to_unix_time

#: Room for every reason tocsin_calendar_check gives (tocsin.h: 256 bytes).
_REASON_BYTES = 256


def encode_spec(spec: str) -> bytes:
    """The spec as the C calls take it; a clear error for anything else."""
    if not isinstance(spec, str):
        raise InvalidArgumentError(EINVAL, f"a calendar spec must be a str, not {type(spec).__name__}")
    if "\0" in spec:
        raise CalendarSpecError(f"column {spec.index(chr(0)) + 1}: a NUL character", spec.index("\0") + 1, spec)
    return spec.encode("utf-8")


def spec_error(spec: str, library: Optional[str] = None) -> CalendarSpecError:
    """Why ``spec`` does not parse, as tocsin_calendar_check says it."""
    lib = _library.load(library)
    buffer = create_string_buffer(_REASON_BYTES)
    lib.tocsin_calendar_check(encode_spec(spec), buffer, _REASON_BYTES)
    reason = buffer.value.decode("utf-8", "replace")
    match = re.match(r"column (\d+): ", reason)
    return CalendarSpecError(f"bad calendar spec {shown(spec)}: {reason}", int(match.group(1)) if match else 1, spec)


def shown(spec: str) -> str:
    """A spec as an error message quotes it: a long one cut (the whole is
    the error's ``spec``)."""
    return repr(spec) if len(spec) <= 80 else f"{spec[:60]!r}… ({len(spec):,} characters)"


def calendar_check(spec: str, *, library: Optional[str] = None) -> str:
    """``spec`` in systemd's normalized form ("Mon..Fri 07:00" gives
    "Mon..Fri *-*-* 07:00:00"). Raises CalendarSpecError (with ``column``)
    if it does not parse or names an unknown time zone."""
    lib = _library.load(library)
    raw = encode_spec(spec)
    length = lib.tocsin_calendar_check(raw, None, 0)
    if length < 0:
        raise spec_error(spec, library)
    buffer = create_string_buffer(length + 1)
    lib.tocsin_calendar_check(raw, buffer, length + 1)
    return buffer.value.decode("utf-8")


@overload
def calendar_next(spec: str, after: None = None, *, library: Optional[str] = None) -> float: ...
@overload
def calendar_next(spec: str, after: "float | int", *, library: Optional[str] = None) -> float: ...
@overload
def calendar_next(spec: str, after: datetime, *, library: Optional[str] = None) -> datetime: ...


def calendar_next(
    spec: str, after: "float | int | datetime | None" = None, *, library: Optional[str] = None
) -> "float | datetime":
    """The next occurrence of ``spec`` strictly after ``after`` (default:
    now). Given a datetime, returns a datetime in its zone (a naive one is
    local time, and so is the result); given a Unix time or nothing, a Unix
    time (float, whole seconds).

    Raises CalendarSpecError for a spec that does not parse or an unknown
    zone, NoOccurrenceError when there is none ("2020-01-01" after 2020)."""
    lib = _library.load(library)
    seconds = time.time() if after is None else to_unix_time(after)
    out = c_double()
    status = lib.tocsin_calendar_next(encode_spec(spec), seconds, byref(out))
    if status == EINVAL:
        if lib.tocsin_calendar_check(encode_spec(spec), None, 0) < 0:
            raise spec_error(spec, library)
        raise InvalidArgumentError(EINVAL, f"calendar_next: {after!r} is not a time within 10^11 s of 1970")
    if status == ERANGE:
        when = after.isoformat(sep=" ") if isinstance(after, datetime) else time.strftime(
            "%Y-%m-%d %H:%M:%S UTC", time.gmtime(seconds))
        raise NoOccurrenceError(ERANGE, f"calendar_next(): {shown(spec)} has no occurrence after {when}")
    if status < 0:
        raise error_for(status, "tocsin_calendar_next")
    if isinstance(after, datetime):
        moment = datetime.fromtimestamp(out.value, timezone.utc)
        return moment.astimezone(after.tzinfo) if after.tzinfo else moment.astimezone().replace(tzinfo=None)
    return out.value
