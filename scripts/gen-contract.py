#!/usr/bin/env python3
"""Writes bindings/contract/abi.json, the manifest every binding is checked
against, from include/tocsin.h and include/tocsin_notify.h (the format:
bindings/contract/README.md). Standard library only.

    scripts/gen-contract.py            rewrite abi.json
    scripts/gen-contract.py --check [--library libtocsin.so]
                                       [--notify-library libtocsin-notify.so]

--check fails (exit 1) when abi.json is not what the headers give, when a
declared function falls outside its library's exports.map, or, given a
built library, when the library's exported tocsin_* functions are not
exactly the declared ones, or its error names and texts differ from the
header's table. The parsing lives in contract_header.py beside this file.
"""
import argparse
import ctypes
import difflib
import fnmatch
import json
import re
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from contract_header import parse_header  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
MANIFEST = ROOT / "bindings/contract/abi.json"
#: header -> (the library that exports its functions, that library's linker map)
HEADERS = {
    "tocsin.h": ("libtocsin.so", "Sources/TocsinC/exports.map"),
    "tocsin_notify.h": ("libtocsin-notify.so", "Sources/TocsinNotifyC/exports.map"),
}
FORMAT = 1


def manifest() -> dict:
    parts = {header: parse_header((ROOT / "include" / header).read_text(), header) for header in HEADERS}
    merged: dict = {"format": FORMAT, "generated_by": "scripts/gen-contract.py",
                    "headers": {header: {"library": library} for header, (library, _) in HEADERS.items()}}
    for key in ["functions", "typedefs", "structs", "enums", "defines", "errors"]:
        merged[key] = [entry for part in parts.values() for entry in part[key]]
    defines = {entry["name"]: entry["value"] for entry in merged["defines"]}
    merged["version"] = {"major": defines["TOCSIN_VERSION_MAJOR"], "minor": defines["TOCSIN_VERSION_MINOR"],
                         "patch": defines["TOCSIN_VERSION_PATCH"], "string": defines["TOCSIN_VERSION_STRING"]}
    return merged


def render(data: dict) -> str:
    """Stable text: keys sorted, lists in header order, two-space indent."""
    return json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


class Checks:
    def __init__(self) -> None:
        self.passed = self.failed = 0

    def result(self, name: str, problems: list[str]) -> None:
        if problems:
            self.failed += 1
            print(f"FAIL contract.{name}")
            for problem in problems:
                print(f"  {problem}")
        else:
            self.passed += 1
            print(f"ok   contract.{name}")


def check_current(checks: Checks, text: str) -> None:
    committed = MANIFEST.read_text() if MANIFEST.exists() else ""
    problems = []
    if committed != text:
        diff = list(difflib.unified_diff(committed.splitlines(), text.splitlines(),
                                         "abi.json (committed)", "abi.json (from the headers)", lineterm="", n=1))
        problems = [f"{MANIFEST.relative_to(ROOT)} is stale: run scripts/gen-contract.py and commit it"]
        problems += diff[:40] + (["  ..."] if len(diff) > 40 else [])
    checks.result("manifest_is_current", problems)


def export_patterns(map_file: Path) -> tuple[list[str], list[str]]:
    """The global and local patterns of a GNU ld version script."""
    text = re.sub(r"/\*.*?\*/", "", map_file.read_text(), flags=re.S)
    sections = dict(re.findall(r"(global|local)\s*:\s*([^:}]*?)(?=\s*(?:global|local)\s*:|\s*})", text))
    split = lambda part: [item.strip() for item in part.split(";") if item.strip()]  # noqa: E731
    return split(sections.get("global", "")), split(sections.get("local", ""))


def check_export_maps(checks: Checks, data: dict) -> None:
    problems = []
    for header, (library, map_path) in HEADERS.items():
        globals_, _ = export_patterns(ROOT / map_path)
        for function in (f for f in data["functions"] if f["header"] == header):
            if not any(fnmatch.fnmatchcase(function["name"], pattern) for pattern in globals_):
                problems.append(f"{function['name']} ({header}) matches no global pattern of {map_path}: {globals_}")
    checks.result("every_function_in_its_exports_map", problems)


def check_library(checks: Checks, data: dict, header: str, path: str) -> None:
    library = HEADERS[header][0]
    listing = subprocess.run(["nm", "-D", "--defined-only", path], capture_output=True, text=True)
    if listing.returncode != 0:
        checks.result(f"{library}_exports", [f"nm -D {path}: {listing.stderr.strip()}"])
        return
    exported = {fields[2] for fields in (line.split() for line in listing.stdout.splitlines())
                if len(fields) == 3 and fields[1] == "T" and fields[2].startswith("tocsin_")}
    declared = {f["name"] for f in data["functions"] if f["header"] == header}
    problems = [f"declared in {header}, not exported by {path}: {name}" for name in sorted(declared - exported)]
    problems += [f"exported by {path}, not declared in {header}: {name}" for name in sorted(exported - declared)]
    checks.result(f"{library}_exports_every_declared_function_and_no_other ({len(declared)})", problems)
    if header == "tocsin.h" and not problems:
        check_error_table(checks, data, path)


def check_error_table(checks: Checks, data: dict, path: str) -> None:
    """tocsin_err_name and tocsin_strerror of the built library against the
    manifest's errors, and its version against the header's."""
    lib = ctypes.CDLL(path)
    for function in (lib.tocsin_err_name, lib.tocsin_strerror):
        function.argtypes, function.restype = [ctypes.c_int], ctypes.c_char_p
    problems = []
    for error in data["errors"]:
        name, text = lib.tocsin_err_name(error["value"]).decode(), lib.tocsin_strerror(error["value"]).decode()
        if (name, text) != (error["name"], error["text"]):
            problems.append(f"{error['value']}: library says {name} '{text}', manifest {error['name']} '{error['text']}'")
    lib.tocsin_version.restype = ctypes.c_char_p
    if lib.tocsin_version().decode() != data["version"]["string"]:
        problems.append(f"tocsin_version() is {lib.tocsin_version().decode()}, header {data['version']['string']}")
    checks.result(f"error_names_and_texts_match_the_library ({len(data['errors'])})", problems)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="check, do not write")
    parser.add_argument("--library", help="a built libtocsin.so to check (--check)")
    parser.add_argument("--notify-library", help="a built libtocsin-notify.so to check (--check)")
    arguments = parser.parse_args()
    data = manifest()
    text = render(data)
    if not arguments.check:
        MANIFEST.write_text(text)
        print(f"wrote {MANIFEST.relative_to(ROOT)}: {len(data['functions'])} functions, "
              f"{len(data['structs'])} structs, {len(data['errors'])} errors")
        return 0
    checks = Checks()
    check_current(checks, text)
    check_export_maps(checks, data)
    for header, path in (("tocsin.h", arguments.library), ("tocsin_notify.h", arguments.notify_library)):
        if path:
            check_library(checks, data, header, path)
    print(f"contract: {checks.passed} passed, {checks.failed} failed")
    return 1 if checks.failed else 0


if __name__ == "__main__":
    sys.exit(main())
