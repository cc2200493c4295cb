"""Every C prototype and struct the binding declares (argument, return and
field types) checked against the contract's manifest,
bindings/contract/abi.json (made from the headers by
scripts/gen-contract.py, which make check keeps current), so that a wrong
argtype fails here rather than corrupting a call; and every function the
libraries export is either bound or listed below with the reason it is not."""

import ctypes
import json
from ctypes import (POINTER, c_char_p, c_double, c_int, c_int32, c_size_t, c_uint, c_uint32, c_uint64,
                    c_void_p)
from pathlib import Path

import pytest

from tocsin import _library, notify

MANIFEST = json.loads((Path(__file__).resolve().parents[2] / "contract" / "abi.json").read_text())

#: C types as the manifest spells them -> the ctypes types that pass them
#: faithfully. Callbacks may go as a CFUNCTYPE or as a plain address (the
#: binding keeps the CFUNCTYPE object alive itself).
C_TYPES = {
    "int": [c_int],
    "unsigned": [c_uint],
    "double": [c_double],
    "size_t": [c_size_t],
    "int32_t": [c_int32],
    "uint32_t": [c_uint32],
    "uint64_t": [c_uint64],
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

#: Functions the binding knowingly leaves unbound, and why.
NOT_BOUND = {
    "tocsin_engine_add_observer": "Engine.on_event keeps engine-wide handlers in Python: every timer already "
                                  "has the binding's one C callback, so an observer would deliver each event twice",
    "tocsin_engine_remove_observer": "no observers are added (see tocsin_engine_add_observer)",
    "tocsin_timer_events": "the binding keeps each timer's event bits itself (Timer._events), set with "
                           "tocsin_timer_set_events; it never reads them back",
}

LIBRARIES = [(_library.PROTOTYPES, "tocsin.h"), (notify._PROTOTYPES, "tocsin_notify.h")]


def declarations(header: str) -> dict[str, tuple[str, list[str]]]:
    """name -> (return type, parameter types) of the header's functions in the manifest."""
    return {function["name"]: (function["returns"], [parameter["type"] for parameter in function["parameters"]])
            for function in MANIFEST["functions"] if function["header"] == header}


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


def test_the_manifest_has_every_declaration():
    assert len(declarations("tocsin.h")) >= 45 and len(declarations("tocsin_notify.h")) == 11
    assert declarations("tocsin.h")["tocsin_timer_laps"] == (
        "int", ["tocsin_engine *", "tocsin_timer", "double *", "size_t"])
    assert declarations("tocsin.h")["tocsin_version"] == ("const char *", [])


@pytest.mark.parametrize("prototypes, header", LIBRARIES, ids=["libtocsin", "libtocsin-notify"])
def test_every_prototype_matches_the_manifest(prototypes, header):
    assert mismatches(prototypes, header) == []


@pytest.mark.parametrize("prototypes, header", LIBRARIES, ids=["libtocsin", "libtocsin-notify"])
def test_every_function_is_bound_or_said_why_not(prototypes, header):
    bound = {entry[0] for entry in prototypes}
    unbound = set(declarations(header)) - bound - set(NOT_BOUND)
    assert unbound == set(), "bind these, or add them to NOT_BOUND with the reason"
    assert bound & set(NOT_BOUND) == set(), "bound now: remove them from NOT_BOUND"


def test_no_unbound_function_is_missing_from_the_manifest():
    declared = set(declarations("tocsin.h")) | set(declarations("tocsin_notify.h"))
    assert set(NOT_BOUND) - declared == set()


@pytest.mark.parametrize("structure, name", [
    (_library.CEvent, "tocsin_event"), (notify._CAlert, "tocsin_alert"), (notify._CReport, "tocsin_notify_report"),
])
def test_every_struct_matches_the_manifest(structure, name):
    (declared,) = [struct for struct in MANIFEST["structs"] if struct["name"] == name]
    fields = [(field["name"], field["type"]) for field in declared["fields"]]
    assert [field[0] for field in structure._fields_] == [field[0] for field in fields]
    for (field, ctype), (_, c_type) in zip(structure._fields_, fields):
        assert ctype in C_TYPES[c_type], f"{name}.{field} is {c_type}, the binding has {ctype}"


def test_the_alert_size_rule_holds():
    """tocsin_alert's size rule: the caller sets `size` to sizeof of the
    whole struct (older, shorter sizes are the library's to accept)."""
    (alert,) = [struct for struct in MANIFEST["structs"] if struct["name"] == "tocsin_alert"]
    assert alert["size_rule"]["field"] == notify._CAlert._fields_[0][0] == "size"
    assert alert["size_rule"]["set_to"] == "sizeof(tocsin_alert)"
    made, _ = notify._alert(None, None, None, True, None, "critical", True, True, None)
    assert made.size == ctypes.sizeof(notify._CAlert)


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


def test_the_bindings_own_copy_of_the_countdown_rule_is_the_headers():
    """countdown() checks its seconds itself, by tocsin_countdown_new's rule
    (0 < s <= TOCSIN_MAX_SECONDS), before the C timer is made: its limit
    must be the header's, and the engine must agree at the edge."""
    from tocsin import Engine, InvalidArgumentError, _engine
    (limit,) = [define["value"] for define in MANIFEST["defines"] if define["name"] == "TOCSIN_MAX_SECONDS"]
    assert _engine.MAX_SECONDS == limit
    with Engine(manual_clock=True) as engine:
        assert engine.countdown(limit).start().remaining == limit  # made in C: the engine takes it too
        with pytest.raises(InvalidArgumentError):
            engine.countdown(limit * (1 + 1e-15))
