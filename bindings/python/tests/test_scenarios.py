"""The contract's scenarios (bindings/contract/scenarios, format in
bindings/contract/README.md) run through the binding's public API: one test
per file, as the C runner runs them. Where the public API has no such call
(a step on handle 0 or on a freed engine's handle, the second free of a
timer, which ``Timer.free()`` takes as a no-op by design) the engine's own
checked call is used."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable, Optional

import pytest

import tocsin
from tocsin import TocsinError

from scenario_expect import expectation
from scenario_file import CLOCKS, POLICIES, Line, ScenarioError, number, read

CONTRACT = Path(__file__).resolve().parents[3] / "bindings" / "contract"
SCENARIOS = sorted((CONTRACT / "scenarios").glob("*.scenario"))
#: status code -> name without TOCSIN_ ("EINVAL"), from the manifest.
ERROR_NAMES = {error["value"]: error["name"].removeprefix("TOCSIN_")
               for error in json.loads((CONTRACT / "abi.json").read_text())["errors"]}


class Failure(Exception):
    pass


class Bound:
    """A name's timer and handle (no timer: its making step failed, handle
    0, or its engine was freed) and the events its handler got since the
    last `expect events` of it."""

    def __init__(self, timer: Optional[tocsin.Timer], name: str = "", order: Optional[list[Any]] = None) -> None:
        self.timer = timer
        self.handle = timer.handle if timer is not None else 0
        self.events: list[tocsin.Event] = []
        if timer is not None:
            timer.on_event(self.events.append)
            if order is not None:  # the engine-wide log of `expect order`
                timer.on_event(lambda event: order.append((name, event)))


class Run:
    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.engine = tocsin.Engine(manual_clock=True)
        self.bound: dict[str, Bound] = {}
        self.status, self.result = 0, 0.0
        self.order: list[tuple[str, tocsin.Event]] = []
        self.error_names = ERROR_NAMES

    def step(self, line: Line) -> None:
        word, args = line.tokens[0], line.tokens[1:]
        self.result = 0.0
        try:
            self.status, result = 0, self.run_step(word, args)
            self.result = float(result) if isinstance(result, (int, float)) else 0.0  # methods return self
        except TocsinError as error:
            self.status = error.code

    def run_step(self, word: str, args: list[str]) -> Any:
        engine, name = self.engine, args[0] if args else ""
        makers = {"countdown": lambda: engine.countdown(number(args[1])), "stopwatch": engine.stopwatch,
                  "alarm": lambda: engine.alarm(number(args[1])), "calendar": lambda: engine.calendar(args[1])}
        if word in makers:
            self.bound[name] = Bound(None)  # until it is made
            self.bound[name] = Bound(makers[word](), name, self.order)
            return None
        if word in ("advance", "suspend-machine", "set-wall-clock"):
            method = {"advance": engine.advance, "suspend-machine": engine.simulate_suspend,
                      "set-wall-clock": engine.set_wall_clock}[word]
            return method(number(args[0]))
        if word == "save":
            return engine.save(self.folder / args[0])
        if word == "load":
            for other in args[1:]:
                self.bound[other] = Bound(None)
            restored = engine.load(self.folder / args[0])
            for other, timer in zip(args[1:], restored):
                self.bound[other] = Bound(timer, other, self.order)
            return len(restored)
        if word == "new-engine":
            self.engine.close()
            self.engine = tocsin.Engine(manual_clock=True)
            for bound in self.bound.values():
                bound.timer = None  # its handle, unknown to the new engine
            return None
        bound = self.bound[name]
        if word == "free" and bound.timer is not None and bound.timer._freed:
            return engine._call("tocsin_timer_free", bound.handle)  # Timer.free() twice is a no-op
        value = args[1] if len(args) > 1 else ""
        method, c_name = _TIMER_STEPS[word]
        if bound.timer is not None:
            return method(bound.timer, value)
        return engine._call(c_name, bound.handle, *_c_arguments(word, value))


#: step -> (the public Timer call, the C function for a timer without one)
_TIMER_STEPS: dict[str, tuple[Callable[[tocsin.Timer, str], Any], str]] = {
    "start": (lambda t, _: t.start(), "tocsin_timer_start"),
    "suspend": (lambda t, _: t.suspend(), "tocsin_timer_suspend"),
    "resume": (lambda t, _: t.resume(), "tocsin_timer_resume"),
    "cancel": (lambda t, _: t.cancel(), "tocsin_timer_cancel"),
    "free": (lambda t, _: t.free(), "tocsin_timer_free"),
    "adjust": (lambda t, v: t.adjust(number(v)), "tocsin_timer_adjust"),
    "tick": (lambda t, v: t.set_tick(number(v)), "tocsin_timer_set_tick"),
    "tick-policy": (lambda t, v: t.set_tick_policy(v), "tocsin_timer_set_tick_policy"),
    "leeway": (lambda t, v: t.set_leeway(number(v)), "tocsin_timer_set_leeway"),
    "clock": (lambda t, v: t.set_clock(v), "tocsin_timer_set_clock"),
    "label": (lambda t, v: setattr(t, "label", v), "tocsin_timer_set_label"),
    "lap": (lambda t, _: t.lap(), "tocsin_timer_lap"),
    "skip": (lambda t, v: t.skip(int(v)) if int(v) else t.clear_skip(), "tocsin_calendar_skip"),
    "skip-until": (lambda t, v: t.skip_until(number(v)), "tocsin_calendar_skip_until"),
}


def _c_arguments(word: str, value: str) -> tuple[Any, ...]:
    """The C call's arguments after the handle, for a step on a timer the
    binding has no object for."""
    if word in ("adjust", "tick", "leeway", "skip-until"):
        return (number(value),)
    if word == "tick-policy":
        return (POLICIES.index(value),)
    if word == "clock":
        return (CLOCKS.index(value),)
    if word == "label":
        return (value.encode(),)
    if word == "skip":
        return (int(value),)
    if word == "lap":
        return (None,)
    return ()


def run_scenario(path: Path, folder: Path) -> None:
    try:
        lines = read(path)
    except ScenarioError as error:
        raise Failure(str(error)) from None
    state = Run(folder)
    try:
        for line in lines:
            where = f"{path.name}:{line.number}: {line.text}"
            if not line.is_expect:
                state.step(line)
                if state.status != 0 and not line.error_checked:
                    raise Failure(f"{where}: failed with {ERROR_NAMES.get(state.status, state.status)} "
                                  "(no 'expect error' follows)")
                if state.status == 0 and line.tokens[0] == "load" and state.result != len(line.tokens) - 2:
                    raise Failure(f"{where}: restored {state.result:.0f} timers for {len(line.tokens) - 2} names")
                continue
            problem = expectation(state, line)
            if problem:
                raise Failure(f"{where}: {problem}")
    finally:
        state.engine.close()


@pytest.mark.parametrize("path", SCENARIOS, ids=[path.name for path in SCENARIOS])
def test_scenario(path: Path, tmp_path: Path) -> None:
    try:
        run_scenario(path, tmp_path)
    except Failure as failure:
        pytest.fail(str(failure), pytrace=False)


def test_there_are_scenarios() -> None:
    assert len(SCENARIOS) >= 12


@pytest.mark.parametrize("text, message", [
    ("countdown t 10\nstart t\nexpect state t runing\n", "bad.scenario:3: parse error: 'runing' is not valid here"),
    ("countdown t 10\nlabel t \"open\n", "bad.scenario:2: parse error: a quoted string is not closed"),
    ("start nobody\n", "bad.scenario:1: parse error: no timer named 'nobody'"),
    ("expect error OK\n", "bad.scenario:1: parse error: 'expect error' before any step"),
    ("countdown t 10\nexpect events t finish:3\n", "bad.scenario:2: parse error: 'finish:3' is not an EVENT"),
    ("\udcff\n", "bad.scenario: "),
])
def test_a_broken_scenario_fails_with_its_file_and_line(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "bad.scenario"
    path.write_bytes(text.encode("utf-8", "surrogateescape"))
    with pytest.raises(Failure) as failure:
        run_scenario(path, tmp_path)
    assert str(failure.value).startswith(message)
