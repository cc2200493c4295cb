"""Desktop alerts: a notification and the alarm sound when a timer finishes.

    timer = engine.countdown(300, label="Tea")
    timer.notify_on_finish(body="Tea is ready", repeat=60)
    timer.start()

A ctypes binding of libtocsin-notify.so (see tocsin_notify.h). Alerts and
sounds run on the notifier's own threads: a missing desktop never delays a
timer. Problems arrive as reports (``on_report``) and, once per reason, as a
line on standard error unless ``quiet``.
"""

from __future__ import annotations

import atexit
import ctypes
import os
import stat
import threading
from ctypes import (
    CFUNCTYPE,
    POINTER,
    Structure,
    byref,
    c_char_p,
    c_double,
    c_int,
    c_int32,
    c_size_t,
    c_uint,
    c_uint32,
    c_uint64,
    c_void_p,
    create_string_buffer,
)
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Optional, Union

from ._errors import InvalidArgumentError, TocsinError, error_for
from ._library import LibrarySpec, _check, load_library
from ._values import Seconds, to_seconds

if TYPE_CHECKING:
    from ._engine import Engine
    from ._timer import Timer

ENV_VARIABLE = "TOCSIN_NOTIFY_LIBRARY"
URGENCIES = {"critical": 0, "normal": 1, "low": 2}
NO_POPUP, NO_SOUND, NO_ACTIONS, LIVE, NO_WARN_SOUND, PAUSE_MEDIA = 1, 2, 4, 8, 16, 32
MEDIA_ACTIONS = {None: 0, "pause": 1, "stop": 2}  # TOCSIN_MEDIA_*
REPORT_KINDS = {1: "shown", 2: "alert_failed", 3: "sound", 4: "sound_failed", 5: "action", 6: "dismissed", 7: "warning",
                8: "unanswered"}


class _CAlert(Structure):
    _fields_ = [
        ("size", c_size_t),
        ("summary", c_char_p),
        ("body", c_char_p),
        ("icon", c_char_p),
        ("sound", c_char_p),
        ("media_role", c_char_p),
        ("repeat_seconds", c_double),
        ("urgency", c_int32),
        ("flags", c_uint32),
        ("warn_seconds", c_double),
        ("warn_sound", c_char_p),
        ("snooze_seconds", c_double),
        ("sound_file", c_char_p),
        ("volume_db", c_double),
        ("fade_seconds", c_double),
        ("notice_seconds", c_double),
        ("media", c_int32),
    ]


class _CReport(Structure):
    _fields_ = [
        ("kind", c_int32),
        ("status", c_int32),
        ("engine", c_void_p),
        ("timer", c_uint64),
        ("detail", c_char_p),
        ("new_timer", c_uint64),
    ]


_REPORT_CALLBACK = CFUNCTYPE(None, c_void_p, POINTER(_CReport), c_void_p)

_PROTOTYPES: list[tuple[str, list[Any], Any, Any]] = [
    ("tocsin_notify_new", [c_uint, POINTER(c_void_p)], c_int, _check),
    ("tocsin_notify_free", [c_void_p], None, None),
    ("tocsin_notify_set_callback", [c_void_p, _REPORT_CALLBACK, c_void_p], c_int, _check),
    ("tocsin_notify_attach", [c_void_p, c_void_p, c_uint64, POINTER(_CAlert)], c_int, _check),
    ("tocsin_notify_detach", [c_void_p, c_void_p, c_uint64], c_int, _check),
    ("tocsin_notify_forget_engine", [c_void_p, c_void_p], c_int, _check),
    ("tocsin_notify_stop", [c_void_p, c_void_p, c_uint64], c_int, _check),
    ("tocsin_notify_set_live_limit", [c_void_p, c_int], c_int, _check),  # since 0.8
    ("tocsin_notify_show", [c_void_p, POINTER(_CAlert)], c_int, _check),
    ("tocsin_notify_flush", [c_void_p, c_double], c_int, _check),
    ("tocsin_notify_diagnose", [c_void_p, c_char_p, c_size_t], c_int, _check),
]


@dataclass(frozen=True)
class Report:
    """What the notifier did or could not do. ``kind``: "shown",
    "alert_failed", "sound", "sound_failed", "action" or "dismissed";
    ``detail``: the reason, the sound that played, or the button pressed."""

    kind: str
    status: int
    timer: Optional[int]
    detail: str
    new_timer: Optional[int]

    @property
    def failed(self) -> bool:
        return self.status < 0


NOTIFY_LIBRARY = LibrarySpec(
    name="libtocsin-notify.so", env_variable=ENV_VARIABLE, soname="libtocsin-notify.so.0",
    find_name="tocsin-notify", prototypes=_PROTOTYPES,
    explicit_argument="Notifier(library='/path/to/libtocsin-notify.so')",
    install_hint=("the desktop notifier is not in the wheel: apt install libtocsin-notify0 "
                  "(it brings libnotify, libcanberra and GLib), or make install in a Tocsin checkout"),
)


def load(explicit: Optional[str] = None) -> ctypes.CDLL:
    """libtocsin-notify.so, found and bound as libtocsin.so is (see
    ``tocsin._library.load_library``): an explicit path (alone), or else
    $TOCSIN_NOTIFY_LIBRARY, the copy bundled with the package, the system's."""
    return load_library(NOTIFY_LIBRARY, explicit)


class Notifier:
    """Desktop alerts for timers. Every method may be called from any thread."""

    def __init__(self, *, quiet: bool = False, library: Optional[str] = None) -> None:
        self._lib = load(library)
        pointer = c_void_p()
        self._lib.tocsin_notify_new(1 if quiet else 0, byref(pointer))
        self._ptr: Optional[int] = pointer.value
        self._handlers: tuple[Callable[[Report], object], ...] = ()
        self._engines: "dict[int, Engine]" = {}
        self._lock = threading.Lock()
        self._callback = _REPORT_CALLBACK(self._deliver)
        self._lib.tocsin_notify_set_callback(self._ptr, self._callback, None)

    def attach(
        self,
        timer: "Timer",
        *,
        summary: Optional[str] = None,
        body: Optional[str] = None,
        icon: Optional[str] = None,
        sound: Union[bool, str] = True,
        repeat: Optional[Seconds] = None,
        urgency: str = "critical",
        popup: bool = True,
        actions: bool = True,
        media_role: Optional[str] = None,
        live: bool = False,
        warn: Optional[Seconds] = None,
        warn_sound: Union[bool, str] = True,
        snooze: Optional[Seconds] = None,
        sound_file: Optional[str] = None,
        volume: float = 0.0,
        fade: Optional[Seconds] = None,
        pause_media: bool = False,
        notice: Optional[Seconds] = None,
        media: Optional[str] = None,
    ) -> None:
        """Alerts each time ``timer`` finishes. ``sound``: True for the alarm
        sound, a sound theme id, or False; ``repeat``: repeat the sound until
        dismissed, for at most this long; ``urgency``: "critical" (stays until
        dismissed), "normal" or "low". ``live``: one notification showing the
        time left while it runs or is paused (Pause/Resume, +1 min, Cancel),
        which becomes the alarm at zero; ``warn``: seconds (or a timedelta)
        before zero to play ``warn_sound`` ("dialog-warning" for True) and
        say "1 minute left"; ``snooze``: seconds (or a timedelta, 1 s to 24 h)
        that the alarm's "Snooze" button puts the timer off (None: the
        button is "+1 min"); ``sound_file``: a sound file of one's own played
        instead of ``sound`` (checked now: InvalidArgumentError says why it
        cannot be read; one that cannot be played when it rings rings
        ``sound`` instead, and the "sound" report says why); ``volume``: dB,
        -60 to +10; ``fade``: seconds (at most 300) over which the ring rises
        from 30 dB below ``volume`` to it; ``pause_media``: pause the media
        players (MPRIS) that play while the alarm rings, and resume them;
        ``notice``: seconds (or a timedelta, at most 24 h) before an alarm
        rings to show "Rings at 07:00, in 30 min" with "Skip this one" (a
        calendar alarm skips that ring, a one-time alarm is cancelled); new
        after 0.8.0. ``media``: "pause" or "stop" makes it a sleep timer: at
        zero every playing media player (MPRIS) gets Pause or Stop, with no
        sound, after its volume fell over the last ``fade`` seconds before
        zero, and gets its volume back after; the notification (unless
        ``popup`` is False) says "Paused 2 players"; new after 0.8.0."""
        alert, keep = _alert(summary, body, icon, sound, repeat, urgency, popup, actions, media_role,
                             live, warn, warn_sound, snooze, sound_file, volume, fade, pause_media, notice, media)
        engine = timer.engine
        self._lib.tocsin_notify_attach(self._pointer(), engine._c_pointer(), timer.handle, byref(alert))
        del keep
        with self._lock:
            self._engines[id(engine)] = engine
        engine._on_close(self)

    def detach(self, timer: "Timer") -> None:
        self._lib.tocsin_notify_detach(self._pointer(), timer.engine._c_pointer(), timer.handle)

    def stop(self, timer: "Timer") -> None:
        """Silences and dismisses the timer's alert (the Stop button); it stays
        attached for the next finish. NoSuchTimerError if none is attached."""
        self._lib.tocsin_notify_stop(self._pointer(), timer.engine._c_pointer(), timer.handle)

    def set_live_limit(self, count: int) -> None:
        """How many live notifications show at once (0 to 1000; 3 by
        default): those of the timers ending soonest; the others are summed
        up in one notification, updated in place."""
        if isinstance(count, bool) or not isinstance(count, int) or not 0 <= count <= 1000:
            raise InvalidArgumentError(-1, f"live limit must be a whole number from 0 to 1000, not {count!r}")
        self._lib.tocsin_notify_set_live_limit(self._pointer(), count)

    def show(self, summary: str = "Tocsin", body: Optional[str] = None, **options: Any) -> None:
        """Shows an alert now, with no timer."""
        alert, keep = _alert(summary, body, options.get("icon"), options.get("sound", True),
                             options.get("repeat"), options.get("urgency", "critical"),
                             options.get("popup", True), options.get("actions", True), options.get("media_role"))
        self._lib.tocsin_notify_show(self._pointer(), byref(alert))
        del keep

    def flush(self, timeout: Seconds = 5.0) -> bool:
        """Waits until alerts are shown and sounds have ended (at most
        ``timeout``); True if nothing is left pending."""
        return bool(self._lib.tocsin_notify_flush(self._pointer(), to_seconds(timeout)) == 0)

    def diagnose(self) -> str:
        """One "topic: finding" line each: session bus, notification server,
        sound server, alarm sound files."""
        length = self._lib.tocsin_notify_diagnose(self._pointer(), None, 0)
        buffer = create_string_buffer(length + 1)
        self._lib.tocsin_notify_diagnose(self._pointer(), buffer, length + 1)
        return buffer.value.decode("utf-8")

    def on_report(self, handler: Callable[[Report], object]) -> Callable[[Report], object]:
        """Calls ``handler(report)`` on one of the notifier's threads."""
        self._handlers = self._handlers + (handler,)
        return handler

    def _forget(self, engine: "Engine") -> None:
        """Detaches every timer of an engine that is closing."""
        with self._lock:
            known = self._engines.pop(id(engine), None)
        pointer = engine._c_pointer()
        if known is not None and self._ptr is not None and pointer is not None:
            self._lib.tocsin_notify_forget_engine(self._ptr, pointer)

    def close(self) -> None:
        """Withdraws every alert, silences every sound, stops the threads."""
        with self._lock:
            pointer, self._ptr = self._ptr, None
            self._engines.clear()
        if pointer is not None:
            self._lib.tocsin_notify_free(pointer)

    def __enter__(self) -> "Notifier":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        if getattr(self, "_ptr", None) is not None:
            self.close()

    def _pointer(self) -> int:
        if self._ptr is None:
            raise TocsinError(-7, "the notifier is closed")
        return self._ptr

    def _deliver(self, notifier: Any, c_report: Any, user_data: Any) -> None:
        raw = c_report.contents
        report = Report(
            REPORT_KINDS.get(raw.kind, str(raw.kind)),
            raw.status,
            raw.timer or None,
            (raw.detail or b"").decode("utf-8", "replace"),
            raw.new_timer or None,
        )
        for handler in self._handlers:
            handler(report)


def _alert(
    summary: Optional[str], body: Optional[str], icon: Optional[str], sound: Union[bool, str],
    repeat: Optional[Seconds], urgency: str, popup: bool, actions: bool, media_role: Optional[str],
    live: bool = False, warn: Optional[Seconds] = None, warn_sound: Union[bool, str] = True,
    snooze: Optional[Seconds] = None, sound_file: Optional[str] = None, volume: float = 0.0,
    fade: Optional[Seconds] = None, pause_media: bool = False, notice: Optional[Seconds] = None,
    media: Optional[str] = None,
) -> tuple[_CAlert, list[bytes]]:
    """The C alert, and the encoded strings it points into (keep them alive)."""
    if urgency not in URGENCIES:
        raise InvalidArgumentError(-1, f"urgency must be one of {', '.join(URGENCIES)}")
    if media not in MEDIA_ACTIONS:
        raise InvalidArgumentError(-1, f"media must be \"pause\", \"stop\" or None, not {media!r}")
    keep: list[bytes] = []

    def text(value: Optional[str]) -> Optional[bytes]:
        if value is None:
            return None
        if "\0" in value:
            raise InvalidArgumentError(-1, "alert text must not contain NUL")
        keep.append(value.encode("utf-8"))
        return keep[-1]

    flags = (0 if popup else NO_POPUP) | (0 if actions else NO_ACTIONS) | (NO_SOUND if sound is False else 0)
    flags |= (LIVE if live else 0) | (NO_WARN_SOUND if warn_sound is False else 0) | (PAUSE_MEDIA if pause_media else 0)
    alert = _CAlert(
        ctypes.sizeof(_CAlert), text(summary), text(body), text(icon),
        text(sound) if isinstance(sound, str) else None, text(media_role),
        0.0 if repeat is None else to_seconds(repeat), URGENCIES[urgency], flags,
        0.0 if warn is None else to_seconds(warn), text(warn_sound) if isinstance(warn_sound, str) else None,
        0.0 if snooze is None else _snooze_seconds(snooze),
        text(_checked_sound_file(sound_file)), _volume(volume), 0.0 if fade is None else to_seconds(fade),
        0.0 if notice is None else to_seconds(notice), MEDIA_ACTIONS[media],
    )
    return alert, keep


def _checked_sound_file(path: Optional[str]) -> Optional[str]:
    """The file, if it can be read (the library checks again; this says why not)."""
    if path is None:
        return None
    if not isinstance(path, str):
        raise InvalidArgumentError(-1, f"sound_file must be a path (str), not {type(path).__name__}")
    if not path:
        raise InvalidArgumentError(-1, "the sound file's name is empty")
    try:
        mode = os.stat(path).st_mode
    except OSError as error:
        raise InvalidArgumentError(-1, f"sound file {path!r}: {error.strerror}") from None
    if not stat.S_ISREG(mode):
        raise InvalidArgumentError(-1, f"sound file {path!r}: not a regular file")
    if not os.access(path, os.R_OK):
        raise InvalidArgumentError(-1, f"sound file {path!r}: Permission denied")
    return path


def _volume(volume: float) -> float:
    if isinstance(volume, bool) or not isinstance(volume, (int, float)) or not -60 <= volume <= 10:
        raise InvalidArgumentError(-1, f"volume must be -60 to +10 dB, got {volume!r}")
    return float(volume)


def _snooze_seconds(snooze: Seconds) -> float:
    seconds = to_seconds(snooze)
    if not 1 <= seconds <= 86400:  # (NaN too)
        raise InvalidArgumentError(-1, f"snooze must be 1 to 86400 seconds (24 h), or None for +1 min; got {seconds}")
    return seconds


_default: Optional[Notifier] = None
_default_lock = threading.Lock()


def default() -> Notifier:
    """The process's shared notifier, made on first use, closed at exit."""
    global _default
    with _default_lock:
        if _default is None:
            _default = Notifier()
            atexit.register(_default.close)
        return _default
