"""Every C prototype the binding declares (argument and return types) checked
against the headers it binds, so that a wrong argtype fails here rather than
corrupting a call."""

import ctypes
import re
from ctypes import POINTER, c_char_p, c_double, c_int, c_size_t, c_uint, c_uint64, c_void_p
from pathlib import Path

import pytest

from tocsin import _library, notify

INCLUDE = Path(__file__).resolve().parents[3] / "include"

#: C types as the headers spell them -> the ctypes types that pass them
#: faithfully. Callbacks may go as a CFUNCTYPE or as a plain address (the
#: binding keeps the CFUNCTYPE object alive itself).
C_TYPES = {
    "int": [c_int],
    "unsigned": [c_uint],
    "double": [c_double],
    "size_t": [c_size_t],
    "const char *": [c_char_p],
    "char *": [c_char_p],
    "void *": [c_void_p],
    "double *": [POINTER(c_double)],
    "size_t *": [POINTER(c_size_t)],
    "tocsin_engine *": [c_void_p],
    "tocsin_notifier *": [c_void_p],
    "tocsin_engine **": [POINTER(c_void_p)],
    "tocsin_notifier **": [POINTER(c_void_p)],
    "tocsin_timer": [c_uint64],
    "tocsin_observer": [c_uint64],
    "tocsin_timer *": [POINTER(c_uint64)],
    "tocsin_callback": [c_void_p, _library.CALLBACK],
    "tocsin_notify_callback": [c_void_p, notify._REPORT_CALLBACK],
    "const tocsin_alert *": [POINTER(notify._CAlert)],
    "void": [None],
}


def declarations(header: str) -> dict[str, tuple[str, list[str]]]:
    """name -> (return type, parameter types) of every TOCSIN_EXTERN function."""
    text = re.sub(r"/\*.*?\*/", "", (INCLUDE / header).read_text(), flags=re.S)
    found = {}
    for head, parameters in re.findall(r"TOCSIN_EXTERN\s+([^;(]*?)\s*\(([^;]*?)\)\s*;", text, flags=re.S):
        head = " ".join(head.split())
        name = re.search(r"(\w+)$", head).group(1)
        returned = head[: -len(name)].strip()
        types = []
        for parameter in parameters.split(","):
            parameter = " ".join(parameter.split())
            if parameter != "void":
                parameter = re.sub(r"\s*\b\w+$", "", parameter)  # drop the parameter's name
                parameter = re.sub(r"\s*\*", " *", parameter).replace("* *", "**")
                types.append(parameter)
        found[name] = (returned.replace(" *", " *").strip(), types)
    return found


def mismatches(prototypes, header: str) -> list[str]:
    declared = declarations(header)
    problems = []
    for name, argtypes, restype, _ in prototypes:
        if name not in declared:
            problems.append(f"{name}: not declared in {header}")
            continue
        returned, parameters = declared[name]
        if restype not in C_TYPES.get(returned, []):
            problems.append(f"{name}: returns {returned}, restype is {restype}")
        if len(argtypes) != len(parameters):
            problems.append(f"{name}: {len(parameters)} parameters in {header}, {len(argtypes)} argtypes")
            continue
        for position, (argtype, parameter) in enumerate(zip(argtypes, parameters)):
            if argtype not in C_TYPES.get(parameter, []):
                problems.append(f"{name}: parameter {position} is {parameter}, argtype is {argtype}")
    return problems


def test_the_header_parser_finds_every_declaration():
    assert len(declarations("tocsin.h")) >= 45 and len(declarations("tocsin_notify.h")) == 11
    assert declarations("tocsin.h")["tocsin_timer_laps"] == (
        "int", ["tocsin_engine *", "tocsin_timer", "double *", "size_t"])
    assert declarations("tocsin.h")["tocsin_version"] == ("const char *", [])


@pytest.mark.parametrize("prototypes, header", [
    (_library.PROTOTYPES, "tocsin.h"),
    (notify._PROTOTYPES, "tocsin_notify.h"),
], ids=["libtocsin", "libtocsin-notify"])
def test_every_prototype_matches_its_header(prototypes, header):
    assert mismatches(prototypes, header) == []


def test_a_wrong_argtype_or_restype_is_caught():
    wrong = [(name, list(argtypes), restype, check) for name, argtypes, restype, check in _library.PROTOTYPES]
    laps = next(entry for entry in wrong if entry[0] == "tocsin_timer_laps")
    laps[1][3] = ctypes.c_int  # size_t passed as an int
    version = next(index for index, entry in enumerate(wrong) if entry[0] == "tocsin_version_hex")
    wrong[version] = ("tocsin_version_hex", [], c_int, None)  # unsigned returned as int
    assert mismatches(wrong, "tocsin.h") == [
        "tocsin_version_hex: returns unsigned, restype is <class 'ctypes.c_int'>",
        "tocsin_timer_laps: parameter 3 is size_t, argtype is <class 'ctypes.c_int'>",
    ]
