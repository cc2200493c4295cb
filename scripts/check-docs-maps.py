#!/usr/bin/env python3
"""Every source file is in a file map (docs/engine.md, docs/service-and-command.md):
a table row names it in backticks, in full (`TimerFile.swift`) or, after its
type's file in the same row, by its concern (`CalendarSpec.swift`, `+Format`).
And no Swift file under Sources is over 300 lines unless its first lines say
why ("// Over 300 lines: ..."). `make check` runs it; exit 1 with a line per
file at fault."""
import os
import re
import sys

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
os.chdir(root)
mapped = set()
for doc in ["docs/engine.md", "docs/service-and-command.md"]:
    for line in open(doc):
        if not line.startswith("|"):
            continue
        cells = line.split("|")
        tokens = re.findall(r"`([^`]+)`", cells[1] if len(cells) > 1 else "")
        base = None
        for token in tokens:
            token = token.strip()
            if token.startswith("+") and base:
                mapped.add(base + token + ("" if token.endswith(".swift") else ".swift"))
            elif re.match(r"^[\w+.-]+\.(swift|c|h)$", token):
                mapped.add(token)
                base = token.split("+")[0].removesuffix(".swift")
failures = []
for folder, _, files in os.walk("Sources"):
    for name in sorted(files):
        if not name.endswith((".swift", ".c")):
            continue
        path = os.path.join(folder, name)
        if name not in mapped:
            failures.append(f"{path}: in no file map (docs/engine.md, docs/service-and-command.md)")
        if name.endswith(".swift"):
            lines = open(path).read().split("\n")
            if len(lines) - 1 > 300 and not any(l.startswith("// Over 300 lines:") for l in lines[:5]):
                failures.append(f"{path}: {len(lines) - 1} lines, and no '// Over 300 lines: why' at its top")
for failure in failures:
    print(failure)
if failures:
    sys.exit(1)
print("check-docs-maps: every source file mapped, none over 300 lines without a reason")
