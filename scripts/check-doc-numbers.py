#!/usr/bin/env python3
"""Numbers the docs take from the code or the build, checked against them:
- docs/dbus.md's count of the options `Add` knows ("it knows N"), against
  AddRequest.optionNames (its own names plus AlarmSettings.Field's cases);
- with LIBDIR (a built lib/ folder of the Embedded Swift build), every
  "N bytes stripped" or "N KB stripped" in README.md against the stripped
  size of the library the paragraph names last before it, within 5 %.
`make test-abi` (in `make check`) runs it. Usage: check-doc-numbers.py [LIBDIR]
Exit 1 with a line per stale number."""
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
TOLERANCE = 0.05
failures = []


def read(path):
    with open(os.path.join(ROOT, path), encoding="utf-8") as file:
        return file.read()


def add_option_count():
    """AddRequest.optionNames: the quoted names of its Set literal, plus
    AlarmSettings.Field's cases when it adds them."""
    source = read("Sources/TocsinService/AddRequest.swift")
    found = re.search(r"optionNames = Set\(\[(.*?)\]\s*(\+ AlarmSettings\.Field\.allCases)?", source, re.S)
    if not found:
        sys.exit("check-doc-numbers: AddRequest.optionNames not found: update this script")
    count = len(re.findall(r'"[a-z_]+"', found.group(1)))
    if found.group(2):
        fields = re.search(r"enum Field: String, CaseIterable.*?\{(.*?)\n\s*\n", read("Sources/TocsinDesktop/AlarmSettings.swift"), re.S)
        cases = re.findall(r"^\s*case (.+)$", fields.group(1), re.M)
        count += sum(len(line.split(",")) for line in cases)
    return count


def check_option_count():
    actual = add_option_count()
    stated = re.findall(r"it knows (\d+)", read("docs/dbus.md"))
    if not stated:
        failures.append("docs/dbus.md: no 'it knows N' for Add's options")
    for number in stated:
        if int(number) != actual:
            failures.append(f"docs/dbus.md: Add 'knows {number}' options; AddRequest.optionNames has {actual}")
    print(f"Add's options: {actual} in the code; docs/dbus.md says {', '.join(stated) or 'nothing'}")


def stripped_size(path):
    with tempfile.TemporaryDirectory() as folder:
        out = os.path.join(folder, "stripped.so")
        subprocess.run(["strip", "-o", out, path], check=True)
        return os.path.getsize(out)


def check_library_sizes(libdir):
    sizes = {name: stripped_size(os.path.join(libdir, name + ".so"))
             for name in ["libtocsin", "libtocsin-notify"]}
    names = re.compile(r"libtocsin(?:-notify)?\.so")
    checked = 0
    for paragraph in read("README.md").split("\n\n"):
        for stated in re.finditer(r"([\d,]+)\s+(bytes|KB)\s+stripped", paragraph):
            before = names.findall(paragraph[:stated.start()])
            where = "README.md: '" + " ".join(stated.group(0).split()) + "'"
            if not before:
                failures.append(f"{where}: no library named before it in its paragraph")
                continue
            library = before[-1].removesuffix(".so")
            bytes_stated = int(stated.group(1).replace(",", "")) * (1024 if stated.group(2) == "KB" else 1)
            built = sizes[library]
            checked += 1
            if abs(bytes_stated - built) > TOLERANCE * built:
                failures.append(f"{where} for {library}.so: built stripped it is {built:,} bytes")
    print(f"README's stripped sizes: {checked} checked against {sizes}")


check_option_count()
if len(sys.argv) > 1:
    check_library_sizes(sys.argv[1])
for failure in failures:
    print("FAIL " + failure)
sys.exit(1 if failures else 0)
