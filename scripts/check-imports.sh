#!/bin/bash
# Every module a target's Swift files import, if it is one of the package's
# targets (or a product of its dependencies), is among the target's own
# dependencies in Package.swift: nothing compiles only because another
# dependency brings it along. (SwiftPM's --explicit-target-dependency-import-check
# looks only for imports from outside the dependency closure; this is stricter.)
# `make check` runs it. Exit status 1 and one line per undeclared import.
set -euo pipefail
cd "$(dirname "$0")/.."
swift package dump-package 2>/dev/null | python3 -c '
import json, os, re, sys
package = json.load(sys.stdin)
targets = {t["name"]: t for t in package["targets"]}
products = {"ArgumentParser", "AsyncAlgorithms"}  # of the dependencies
known = set(targets) | products
failures = 0
for name, target in targets.items():
    declared = set()
    for dependency in target.get("dependencies", []):
        for value in dependency.values():
            declared.add(value[0])
    folder = target.get("path") or os.path.join("Tests" if target["type"] == "test" else "Sources", name)
    for root, _, files in os.walk(folder):
        for file in sorted(files):
            if not file.endswith(".swift"):
                continue
            path = os.path.join(root, file)
            for number, line in enumerate(open(path), 1):
                match = re.match(r"^\s*(?:@\w+\s+)*(?:public |package |internal )?import\s+(\w+)", line)
                if match and match.group(1) in known and match.group(1) != name and match.group(1) not in declared:
                    print(f"{path}:{number}: {name} imports {match.group(1)} without declaring it in Package.swift")
                    failures += 1
sys.exit(1 if failures else 0)
'
echo "check-imports: every import of a package target is declared"
