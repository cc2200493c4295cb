"""The expectations of a scenario (bindings/contract/README.md) checked
through the binding's public API: each returns None, or what was expected
and what came. test_scenarios.py runs the steps."""

from __future__ import annotations

from typing import Any, Callable, Optional

import tocsin
from tocsin import TocsinError

from scenario_file import CLOCKS, EVENT_FIELDS, Line, event, number, same


def _seconds(value: Optional[float]) -> float:
    """A stopwatch's remaining and duration: None in Python, -1 in C."""
    return -1.0 if value is None else value


def _shown(event_: tocsin.Event) -> str:
    kind = event_.kind.name.lower()
    detail = f":{event_.tick}" if kind == "tick" else f":{event_.state}" if kind == "state" else ""
    return (f"{kind}{detail},elapsed={event_.elapsed:.9g},remaining={_seconds(event_.remaining):.9g},"
            f"lateness={event_.lateness:.9g},missed={event_.missed}")


def _matches(got: tocsin.Event, token: str) -> bool:
    wanted = event(token)
    if int(got.kind) != wanted.kind:
        return False
    if wanted.detail is not None and not same(float(got.tick if wanted.kind == 1 else int(got.state)), wanted.detail):
        return False
    values = {"elapsed": got.elapsed, "remaining": _seconds(got.remaining), "lateness": got.lateness,
              "missed": float(got.missed), "tick": float(got.tick)}
    return all(same(values[name], value) for name, value in wanted.fields.items() if name in EVENT_FIELDS)


def _events(run: Any, line: Line) -> Optional[str]:
    bound = run.bound[line.tokens[2]]
    got = list(bound.events)
    bound.events.clear()  # the handler appends to this list
    wanted = line.tokens[3:]
    if len(got) == len(wanted) and all(_matches(one, token) for one, token in zip(got, wanted)):
        return None
    return f"got {len(got)} event{'' if len(got) == 1 else 's'}: " + (" ".join(map(_shown, got)) or "none")


def _order(run: Any, line: Line) -> Optional[str]:
    got = list(run.order)
    run.order.clear()  # the handlers append to this list
    wanted = [token.partition("/") for token in line.tokens[2:]]
    if len(got) == len(wanted) and all(name == want_name and _matches(one, rest)
                                       for (name, one), (want_name, _, rest) in zip(got, wanted)):
        return None
    return f"got {len(got)} event{'' if len(got) == 1 else 's'}: " + (
        " ".join(f"{name}/{_shown(one)}" for name, one in got) or "none")


def _number(got: float, expected: str) -> Optional[str]:
    return None if same(got, number(expected)) else f"expected {number(expected):.9g}, got {got:.9g}"


#: expectation -> (the timer's value through the public API, how to compare)
_TIMER_QUERIES: dict[str, Callable[[tocsin.Timer, str], Optional[str]]] = {
    "state": lambda t, want: None if str(t.state) == want else f"expected {want}, got {t.state}",
    "clock": lambda t, want: None if CLOCKS[int(t.clock)] == want else f"expected {want}, got {CLOCKS[int(t.clock)]}",
    "elapsed": lambda t, want: _number(t.elapsed, want),
    "remaining": lambda t, want: _number(_seconds(t.remaining), want),
    "duration": lambda t, want: _number(_seconds(t.duration), want),
    "leeway": lambda t, want: _number(t.leeway, want),
    "alarm-time": lambda t, want: ("the query failed with EINVAL" if t.alarm_time is None
                                   else _number(t.alarm_time, want)),
    "label": lambda t, want: None if t.label == want else f'expected "{want}", got "{t.label}"',
    "calendar": lambda t, want: (None if t.calendar == want else
                                 f'expected "{want}", got ' + ("none" if t.calendar is None else f'"{t.calendar}"')),
    "skipped-until": lambda t, want: (
        (None if t.skipped_until is None else f"expected none, got {t.skipped_until:.9g}") if want == "none" else
        (f"expected {want}, got none" if t.skipped_until is None else _number(t.skipped_until, want))),
}


def expectation(run: Any, line: Line) -> Optional[str]:
    what, args = line.tokens[1], line.tokens[2:]
    if what == "error":
        got = run.error_names.get(run.status, str(run.status))
        return None if got == args[0] else f"expected {args[0]}, got {got}"
    if what == "result":
        return _number(run.result, args[0])
    if what == "now":
        return _number(run.engine.now, args[0])
    if what == "wall-clock":
        return _number(run.engine.wall_clock, args[0])
    if what == "timers":
        return _number(len(run.engine.timers()), args[0])
    if what == "events":
        return _events(run, line)
    if what == "order":
        return _order(run, line)
    bound = run.bound[args[0]]
    try:
        if bound.timer is None:  # handle 0 or a freed engine's: the engine says why
            run.engine._call("tocsin_timer_state", bound.handle)
            return "a timer that is not there answered"
        if what == "laps":
            laps = bound.timer.laps
            ok = len(laps) == len(args) - 1 and all(same(lap, number(want)) for lap, want in zip(laps, args[1:]))
            return None if ok else f"got {len(laps)} laps: " + (" ".join(f"{lap:.9g}" for lap in laps) or "none")
        return _TIMER_QUERIES[what](bound.timer, args[1])
    except TocsinError as error:
        return f"the query failed with {run.error_names.get(error.code, error.code)}"

