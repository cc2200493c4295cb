"""Finding and loading the binding's C libraries (libtocsin.so, and
libtocsin-notify.so for ``tocsin.notify``), one way for both, and the table
of libtocsin.so's C prototypes.

Three ways to call a C function, and when to use which (each function's
types come from ``PROTOTYPES``, which tests/test_prototypes.py checks
against tocsin.h through the contract's manifest, bindings/contract/abi.json):

- **checked** (``library.tocsin_x(...)``, the default): the prototype's
  errcheck turns a negative status into the matching ``TocsinError``. Use it
  everywhere a call is not made per timer or per event.
- **unchecked** (``unchecked(library, name)``, cached by the caller): the
  same function with no errcheck; the caller tests ``status < 0`` and raises
  ``error_for(status, name)`` itself. An errcheck is one more Python call per
  C call, so the per-timer and per-event paths (countdown, start, resume,
  cancel, free, the callback's state query) use this. ``Engine._call`` is
  the checked way by name over unchecked functions.
- **keeping errno** (``keeping_errno(library, name)``): unchecked, and the C
  ``errno`` kept after each call for ``ctypes.get_errno()``: only for
  ``tocsin_engine_save`` and ``tocsin_engine_load``, whose TOCSIN_EIO the
  errno explains (keeping it costs every call a swap).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import threading
from ctypes import (
    CFUNCTYPE,
    POINTER,
    c_char_p,
    c_double,
    c_int,
    c_int32,
    c_size_t,
    c_uint,
    c_uint64,
    c_void_p,
)
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Optional, Sequence

from ._errors import TocsinError, error_for, set_strerror

#: The C ABI major version this binding speaks (see TOCSIN_VERSION_MAJOR).
ABI_MAJOR = 0
#: The oldest library minor version that has every function below.
ABI_MINOR = 8

ENV_VARIABLE = "TOCSIN_LIBRARY"
_BUNDLED_DIR = Path(__file__).resolve().parent / "_lib"


class CEvent(ctypes.Structure):
    """``tocsin_event``: these fields, in this order (more may follow)."""

    _fields_ = [
        ("kind", c_int32),
        ("state", c_int32),
        ("timer", c_uint64),
        ("elapsed", c_double),
        ("remaining", c_double),
        ("tick", c_uint64),
        ("lateness", c_double),
        ("missed", c_uint64),  # since 0.3
    ]


#: ``tocsin_callback``: (engine, const tocsin_event *, user_data) -> void.
CALLBACK = CFUNCTYPE(None, c_void_p, POINTER(CEvent), c_void_p)


def _check(result: int, func: Any, args: tuple[Any, ...]) -> int:
    """errcheck for calls returning a status or count: negative raises."""
    if result < 0:
        raise error_for(result, func.__name__)
    return result


_ENGINE = c_void_p
_TIMER = c_uint64
_OUT_DOUBLE = POINTER(c_double)

#: (name, argtypes, restype, errcheck) for every function the binding uses.
PROTOTYPES: list[tuple[str, list[Any], Any, Optional[Callable[..., Any]]]] = [
    ("tocsin_version", [], c_char_p, None),
    ("tocsin_version_hex", [], c_uint, None),
    ("tocsin_strerror", [c_int], c_char_p, None),
    ("tocsin_err_name", [c_int], c_char_p, None),
    ("tocsin_engine_new", [c_uint, POINTER(c_void_p)], c_int, _check),
    ("tocsin_engine_close", [_ENGINE], None, None),
    ("tocsin_engine_free", [_ENGINE], None, None),
    ("tocsin_engine_fd", [_ENGINE], c_int, _check),
    ("tocsin_engine_dispatch", [_ENGINE], c_int, _check),
    ("tocsin_engine_advance", [_ENGINE, c_double], c_int, _check),
    ("tocsin_engine_now", [_ENGINE, _OUT_DOUBLE], c_int, _check),
    ("tocsin_engine_wall_clock", [_ENGINE, _OUT_DOUBLE], c_int, _check),  # since 0.4
    ("tocsin_engine_simulate_suspend", [_ENGINE, c_double], c_int, _check),
    ("tocsin_engine_set_wall_clock", [_ENGINE, c_double], c_int, _check),
    ("tocsin_alarm_new", [_ENGINE, c_double, POINTER(c_uint64)], c_int, _check),
    ("tocsin_timer_set_clock", [_ENGINE, _TIMER, c_int], c_int, _check),
    ("tocsin_timer_clock", [_ENGINE, _TIMER], c_int, _check),
    ("tocsin_timer_alarm_time", [_ENGINE, _TIMER, _OUT_DOUBLE], c_int, _check),
    # Calendar alarms (since 0.6): their failures are explained by
    # tocsin_calendar_check's text (see _calendar.py), so no errcheck.
    ("tocsin_calendar_next", [c_char_p, c_double, _OUT_DOUBLE], c_int, None),
    ("tocsin_calendar_check", [c_char_p, c_char_p, c_size_t], c_int, None),
    ("tocsin_calendar_new", [_ENGINE, c_char_p, POINTER(c_uint64)], c_int, None),
    ("tocsin_timer_calendar", [_ENGINE, _TIMER, c_char_p, c_size_t], c_int, _check),
    ("tocsin_calendar_skip", [_ENGINE, _TIMER, c_uint], c_int, _check),  # new after 0.8.0
    ("tocsin_calendar_skip_until", [_ENGINE, _TIMER, c_double], c_int, _check),
    ("tocsin_calendar_skipped_until", [_ENGINE, _TIMER, _OUT_DOUBLE], c_int, _check),
    ("tocsin_timer_set_wake", [_ENGINE, _TIMER, c_int], c_int, _check),  # since 0.6
    ("tocsin_timer_wake", [_ENGINE, _TIMER], c_int, _check),
    ("tocsin_timer_set_leeway", [_ENGINE, _TIMER, c_double], c_int, _check),  # since 0.8
    ("tocsin_timer_leeway", [_ENGINE, _TIMER, _OUT_DOUBLE], c_int, _check),
    ("tocsin_engine_can_wake", [_ENGINE], c_int, _check),
    ("tocsin_engine_wake_reason", [_ENGINE, c_char_p, c_size_t], c_int, _check),
    ("tocsin_countdown_new", [_ENGINE, c_double, POINTER(c_uint64)], c_int, _check),
    ("tocsin_stopwatch_new", [_ENGINE, POINTER(c_uint64)], c_int, _check),
    ("tocsin_timer_free", [_ENGINE, _TIMER], c_int, _check),
    # Callbacks go as plain addresses (Engine keeps the CALLBACK object alive):
    # converting a CFUNCTYPE argument costs about a microsecond per call.
    ("tocsin_timer_set_callback", [_ENGINE, _TIMER, c_void_p, c_void_p], c_int, _check),
    ("tocsin_timer_set_events", [_ENGINE, _TIMER, c_uint], c_int, _check),
    # The per-timer hot path checks its status inline (see Engine): an errcheck
    # costs a Python call per C call.
    ("tocsin_countdown_start", [_ENGINE, c_double, c_uint, c_void_p, c_void_p, POINTER(c_uint64)], c_int, None),
    ("tocsin_timer_set_tick", [_ENGINE, _TIMER, c_double], c_int, _check),
    ("tocsin_timer_set_label", [_ENGINE, _TIMER, c_char_p], c_int, _check),
    ("tocsin_timer_label", [_ENGINE, _TIMER, c_char_p, c_size_t], c_int, _check),
    ("tocsin_timer_start", [_ENGINE, _TIMER], c_int, _check),
    ("tocsin_timer_suspend", [_ENGINE, _TIMER], c_int, _check),
    ("tocsin_timer_resume", [_ENGINE, _TIMER], c_int, _check),
    ("tocsin_timer_cancel", [_ENGINE, _TIMER], c_int, _check),
    ("tocsin_timer_adjust", [_ENGINE, _TIMER, c_double], c_int, _check),
    ("tocsin_timer_set_tick_policy", [_ENGINE, _TIMER, c_int], c_int, _check),
    ("tocsin_timer_lap", [_ENGINE, _TIMER, _OUT_DOUBLE], c_int, _check),
    ("tocsin_timer_laps", [_ENGINE, _TIMER, _OUT_DOUBLE, c_size_t], c_int, _check),
    ("tocsin_timer_state", [_ENGINE, _TIMER], c_int, _check),
    ("tocsin_timer_elapsed", [_ENGINE, _TIMER, _OUT_DOUBLE], c_int, _check),
    ("tocsin_timer_remaining", [_ENGINE, _TIMER, _OUT_DOUBLE], c_int, _check),
    ("tocsin_timer_duration", [_ENGINE, _TIMER, _OUT_DOUBLE], c_int, _check),
    ("tocsin_engine_timers", [_ENGINE, POINTER(c_uint64), c_size_t], c_int, _check),
    ("tocsin_engine_save", [_ENGINE, c_char_p], c_int, _check),
    ("tocsin_engine_load", [_ENGINE, c_char_p, POINTER(c_size_t)], c_int, _check),
]


def unchecked(library: ctypes.CDLL, name: str) -> Any:
    """A second handle on a prototyped function, without its errcheck, for
    per-firing paths that read the status inline (an errcheck is one more
    Python call per C call)."""
    for entry, argtypes, restype, _ in PROTOTYPES:
        if entry == name:
            function = library._FuncPtr((name, library))
            function.argtypes = argtypes
            function.restype = restype
            return function
    raise KeyError(name)


def keeping_errno(library: ctypes.CDLL, name: str) -> Any:
    """A handle on a prototyped function that keeps the C errno after each
    call (``ctypes.get_errno()``), without errcheck: for the file calls,
    whose TOCSIN_EIO errno explains. Only those: keeping errno costs every
    call a swap."""
    for entry, argtypes, restype, _ in PROTOTYPES:
        if entry == name:
            return ctypes.CFUNCTYPE(restype, *argtypes, use_errno=True)((name, library))
    raise KeyError(name)


@dataclass(frozen=True)
class LibrarySpec:
    """One of the binding's libraries: where to look for it and what it must
    have. ``load_library`` does the rest, alike for both."""

    #: The file name users know, e.g. "libtocsin.so".
    name: str
    #: The environment variable naming its path.
    env_variable: str
    #: Its soname, as bundled in the package and installed.
    soname: str
    #: The name ``ctypes.util.find_library`` takes.
    find_name: str
    #: (name, argtypes, restype, errcheck) of every function the binding calls.
    prototypes: Sequence[tuple[str, list[Any], Any, Optional[Callable[..., Any]]]]
    #: How to pass a path explicitly, for the "Fix:" line.
    explicit_argument: str
    #: What to install when it is missing, said in the error's first line.
    install_hint: str = ""

    #: Checks a bound library's version; raises TocsinError if it will not do.
    check_version: Optional[Callable[[ctypes.CDLL, str], None]] = None


class LibraryNotFoundError(TocsinError, OSError):
    """A library could not be loaded from any of the places tried."""

    def __init__(self, tried: list[str], spec: "Optional[LibrarySpec]" = None) -> None:
        spec = spec or ENGINE_LIBRARY
        lines = "\n".join(f"  - {place}" for place in tried)
        message = (
            f"could not load {spec.name}" + (f": {spec.install_hint}" if spec.install_hint else "") + "; tried:\n"
            f"{lines}\n"
            f"Fix: pass {spec.explicit_argument}, set "
            f"{spec.env_variable}=/path/to/{spec.name}, reinstall the package from a "
            "checkout with a Swift toolchain (it bundles the library), or install "
            "the library system-wide (make install in the Tocsin checkout)."
        )
        Exception.__init__(self, message)
        self.code = 0
        self.tried = tried


def _candidates(spec: LibrarySpec, explicit: Optional[str], system: bool = True) -> list[tuple[str, str]]:
    """(description, path or name) in the order they are tried (without
    ``system``, all but the system's). An explicit path is the only one
    tried: asking for one library and silently getting another would hide
    the mistake."""
    if explicit:
        return [("library argument", str(explicit))]
    places: list[tuple[str, str]] = []
    from_env = os.environ.get(spec.env_variable)
    if from_env:
        places.append((f"${spec.env_variable}", from_env))
    bundled = _BUNDLED_DIR / spec.soname
    places.append(("bundled with the package", str(bundled)))
    if system:
        places.append(("system (ctypes.util.find_library)", _system_library(spec)))
    return places


_found: dict[str, Optional[str]] = {}


def _system_library(spec: LibrarySpec) -> str:
    """The system's copy as ctypes.util.find_library finds it, or the
    soname. Looked up once per process: it runs ldconfig, milliseconds."""
    if spec.find_name not in _found:
        _found[spec.find_name] = ctypes.util.find_library(spec.find_name)
    return _found[spec.find_name] or spec.soname


def _bind(spec: LibrarySpec, library: ctypes.CDLL, path: str) -> ctypes.CDLL:
    """Sets argtypes/restype/errcheck on every prototype; a missing function
    means a library too old or too new; then the spec's version check."""
    for name, argtypes, restype, errcheck in spec.prototypes:
        try:
            function = getattr(library, name)
        except AttributeError:
            raise TocsinError(
                0,
                f"{path} has no {name}: the library is too old or too new for this "
                f"binding (needs ABI {ABI_MAJOR}.{ABI_MINOR} or a later {ABI_MAJOR}.x)",
            ) from None
        function.argtypes = argtypes
        function.restype = restype
        if errcheck is not None:
            function.errcheck = errcheck
    if spec.check_version is not None:
        spec.check_version(library, path)
    return library


def _check_engine_version(library: ctypes.CDLL, path: str) -> None:
    set_strerror(library.tocsin_strerror)
    version = library.tocsin_version_hex()
    major, minor = version >> 16, (version >> 8) & 0xFF
    if major != ABI_MAJOR or minor < ABI_MINOR:
        raise TocsinError(
            0,
            f"{path} is version {library.tocsin_version().decode()}; this binding "
            f"needs {ABI_MAJOR}.{ABI_MINOR} or a later {ABI_MAJOR}.x",
        )


ENGINE_LIBRARY = LibrarySpec(
    name="libtocsin.so", env_variable=ENV_VARIABLE, soname="libtocsin.so.0", find_name="tocsin",
    prototypes=PROTOTYPES, explicit_argument="Engine(library='/path/to/libtocsin.so')",
    check_version=_check_engine_version,
    install_hint=("Tocsin is not on PyPI: in a Tocsin checkout, pip install ./bindings/python "
                  "(builds and bundles it), or make wheel, then pip install dist/tocsin-*.whl; "
                  "or make deb, then apt install ./dist/libtocsin0_*.deb"),
)

_loaded: dict[str, ctypes.CDLL] = {}
_load_lock = threading.Lock()


def load_library(spec: LibrarySpec, explicit: Optional[str] = None) -> ctypes.CDLL:
    """Loads and binds one of the binding's libraries: an explicit path
    (alone), or else its environment variable's, then the copy bundled in
    the package, then the system's. Cached per path.

    Raises LibraryNotFoundError listing every place tried, or TocsinError
    for a library too old or too new for this binding.
    """
    with _load_lock:
        for _, path in _candidates(spec, explicit, system=False):  # loaded already: no lookup
            if path in _loaded:
                return _loaded[path]
        places = _candidates(spec, explicit)
        for _, path in places:
            if path in _loaded:
                return _loaded[path]
        library, path = open_first(places, spec)
        _loaded[path] = _bind(spec, library, path)
        return _loaded[path]


def load(explicit: Optional[str] = None) -> ctypes.CDLL:
    """Loads and binds libtocsin.so (see ``load_library``)."""
    return load_library(ENGINE_LIBRARY, explicit)


def open_first(places: list[tuple[str, str]], spec: Optional[LibrarySpec] = None) -> tuple[ctypes.CDLL, str]:
    """The first of (description, path) that loads, and its path; else
    LibraryNotFoundError naming every place tried and why it failed."""
    tried: list[str] = []
    for description, path in places:
        if not path:
            continue
        if os.sep in path and not os.path.exists(path):
            tried.append(f"{description}: {path} (no such file)")
            continue
        try:
            return ctypes.CDLL(path), path
        except OSError as error:
            tried.append(f"{description}: {path} ({error})")
    raise LibraryNotFoundError(tried, spec)
