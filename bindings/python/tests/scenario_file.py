"""Reads a scenario file (bindings/contract/README.md) into checked lines,
as the C runner's scenario_parse.c does: the whole file first, every fault
a ScenarioError naming FILE:LINE."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

STATES = ["idle", "running", "suspended", "finished", "canceled"]
CLOCKS = ["boot", "awake"]
POLICIES = ["every", "coalesce"]
KINDS = {"tick": 1, "state": 2, "finish": 3}
EVENT_FIELDS = ["elapsed", "remaining", "lateness", "missed", "tick"]
ERRORS = ["OK", "EINVAL", "ENOENT", "ESTATE", "ENOMEM", "EIO", "ECORRUPT", "ECLOSED", "EUNAVAILABLE", "ERANGE"]

# Forms as in scenario_parse.c: B binds a name, N a bound name, n NUMBER,
# c COUNT, s STRING, f FILE, S STATE, C CLOCK, P POLICY, E ERROR,
# x NUMBER or none, v EVENT, o NAME/EVENT; '*' repeats the form before it.
STEPS = {
    "countdown": "Bn", "stopwatch": "B", "alarm": "Bn", "calendar": "Bs", "start": "N", "suspend": "N",
    "resume": "N", "cancel": "N", "free": "N", "adjust": "Nn", "tick": "Nn", "tick-policy": "NP",
    "leeway": "Nn", "clock": "NC", "label": "Ns", "lap": "N", "skip": "Nc", "skip-until": "Nn",
    "advance": "n", "suspend-machine": "n", "set-wall-clock": "n", "save": "f", "load": "fB*", "new-engine": "",
}
EXPECTATIONS = {
    "error": "E", "result": "n", "state": "NS", "elapsed": "Nn", "remaining": "Nn", "duration": "Nn",
    "laps": "Nn*", "label": "Ns", "clock": "NC", "leeway": "Nn", "alarm-time": "Nn", "calendar": "Ns",
    "skipped-until": "Nx", "now": "n", "wall-clock": "n", "timers": "c", "events": "Nv*", "order": "o*",
}
NUMBER = re.compile(r"-?[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?")
NAME = re.compile(r"[A-Za-z][A-Za-z0-9_-]*")
FILE = re.compile(r"[A-Za-z0-9_.-]+")
TOLERANCE = 1e-6


class ScenarioError(Exception):
    pass


@dataclass
class Token:
    text: str
    quoted: bool


@dataclass
class Line:
    number: int
    text: str
    tokens: list[str]
    is_expect: bool = False
    error_checked: bool = False  # a step an `expect error` follows


@dataclass
class Event:
    kind: int
    detail: Optional[float] = None
    fields: dict[str, float] = field(default_factory=dict)


def number(token: str) -> float:
    words = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}
    if token in words:
        return words[token]
    if not NUMBER.fullmatch(token):
        raise ValueError(f"'{token}' is not a NUMBER")
    return float(token)


def same(got: float, expected: float) -> bool:
    if math.isnan(got) or math.isnan(expected):
        return math.isnan(got) and math.isnan(expected)
    if math.isinf(got) or math.isinf(expected):
        return got == expected
    return abs(got - expected) <= TOLERANCE


def event(token: str) -> Event:
    head, *fields = token.split(",")
    kind, _, detail = head.partition(":")
    if kind not in KINDS:
        raise ValueError(f"'{token}' is not an EVENT")
    parsed = Event(KINDS[kind])
    if detail or ":" in head:
        if kind == "state" and detail in STATES:
            parsed.detail = STATES.index(detail)
        elif kind == "tick":
            parsed.detail = number(detail)
        else:
            raise ValueError(f"'{token}' is not an EVENT")
    for item in fields:
        name, equals, value = item.partition("=")
        if not equals or name not in EVENT_FIELDS:
            raise ValueError(f"'{token}' is not an EVENT")
        parsed.fields[name] = number(value)
    return parsed


def tokenize(text: str) -> list[Token]:
    tokens, at = [], 0
    while True:
        while at < len(text) and text[at] in " \t":
            at += 1
        if at == len(text) or text[at] == "#":
            return tokens
        if text[at] == '"':
            at, value = at + 1, []
            while True:
                if at == len(text):
                    raise ValueError("a quoted string is not closed")
                if text[at] == '"':
                    break
                if text[at] == "\\":
                    at += 1
                    if at == len(text) or text[at] not in '"\\':
                        raise ValueError('only \\" and \\\\ are allowed in a quoted string')
                value.append(text[at])
                at += 1
            at += 1
            if at < len(text) and text[at] not in " \t":
                raise ValueError("a closing quote must end the token")
            tokens.append(Token("".join(value), True))
        else:
            end = at
            while end < len(text) and text[end] not in " \t":
                if text[end] == '"':
                    raise ValueError("a quote inside a word")
                end += 1
            tokens.append(Token(text[at:end], False))
            at = end


def check(token: Token, form: str, names: set[str]) -> None:
    text = token.text
    if token.quoted != (form == "s"):
        raise ValueError(f"'{text}' must be a quoted string" if form == "s" else f'"{text}" must not be quoted')
    if form == "B":
        if not NAME.fullmatch(text):
            raise ValueError(f"'{text}' is not a timer name")
        if text in names:
            raise ValueError(f"'{text}' is bound already")
        names.add(text)
    elif form == "N" and text not in names:
        raise ValueError(f"no timer named '{text}'")
    elif form == "n" or (form == "x" and text != "none"):
        number(text)
    elif form == "v":
        event(text)
    elif form == "o":
        name, slash, rest = text.partition("/")
        if not slash:
            raise ValueError(f"'{text}' is not NAME/EVENT")
        event(rest)
        if name not in names:
            raise ValueError(f"no timer named '{name}'")
    elif form in "cfSCPE":
        allowed = {"c": lambda: text.isdigit() and text.isascii(), "f": lambda: FILE.fullmatch(text),
                   "S": lambda: text in STATES, "C": lambda: text in CLOCKS, "P": lambda: text in POLICIES,
                   "E": lambda: text in ERRORS}[form]
        if not allowed():
            raise ValueError(f"'{text}' is not valid here")


def read(path: Path) -> list[Line]:
    """Every line with tokens, checked; ScenarioError("FILE:LINE: parse error: ...")."""
    try:
        source = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise ScenarioError(f"{path.name}: {error}") from None
    lines: list[Line] = []
    names: set[str] = set()
    last_step: Optional[Line] = None
    for number_, raw in enumerate(source.split("\n"), 1):
        text = raw.strip(" \t\r")
        try:
            tokens = tokenize(text)
            if not tokens:
                continue
            is_expect = tokens[0].text == "expect" and not tokens[0].quoted
            first = 2 if is_expect else 1
            if len(tokens) < first:
                raise ValueError("expect what?")
            table = EXPECTATIONS if is_expect else STEPS
            word = tokens[first - 1]
            if word.quoted or word.text not in table:
                raise ValueError(f"unknown {'expectation' if is_expect else 'step'} '{word.text}'")
            forms = table[word.text]
            fixed = forms.split("*")[0]
            given = tokens[first:]
            if ("*" in forms and len(given) < len(fixed) - 1) or ("*" not in forms and len(given) != len(fixed)):
                raise ValueError(f"'{word.text}' takes {len(fixed)} arguments, got {len(given)}")
            for at, token in enumerate(given):
                check(token, fixed[at] if at < len(fixed) else fixed[-1], names)
            if is_expect and word.text in ("error", "result") and last_step is None:
                raise ValueError(f"'expect {word.text}' before any step")
        except ValueError as error:
            raise ScenarioError(f"{path.name}:{number_}: parse error: {error}") from None
        line = Line(number_, text, [token.text for token in tokens], is_expect)
        if not is_expect:
            last_step = line
        elif word.text == "error" and last_step is not None:
            last_step.error_checked = True
        lines.append(line)
    return lines
