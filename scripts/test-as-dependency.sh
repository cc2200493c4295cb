#!/usr/bin/env bash
# Builds Tocsin as another package's dependency, the way a Swift programmer
# adds it: a throw-away package (Tests/package) names it by a git URL, here
# file:// to a snapshot of this working tree (committed or not), next to
# swift-async-algorithms. Release build; then it runs each of its programs
# (Tocsin's clocks with AsyncTimerSequence and debounce, which clocks Swift's
# own clocks read, the notifier) and
# the README's "Using it from Swift" examples exactly as written: each
# ```swift block there is a program, or with @Test, the package's test.
# Work in out/as-dependency (kept between runs: the packages' clones).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
work=$root/out/as-dependency
rm -rf "$work/tocsin" "$work/app/Sources" "$work/app/Tests"
mkdir -p "$work/tocsin" "$work/app"

# The snapshot: the files git would commit, as they are now.
git ls-files -co --exclude-standard -z | xargs -0 cp --parents -t "$work/tocsin"
git -C "$work/tocsin" init -q -b main
git -C "$work/tocsin" add -A
git -C "$work/tocsin" -c user.name=test -c user.email=test@localhost commit -qm snapshot

cp -r Tests/package/. "$work/app/"
mkdir -p "$work/app/Tests/ReadmeTests"  # empty in git: the README's test goes there
# The README's Swift blocks, from "## Using it from Swift" to the next heading.
awk -v dir="$work/app" '
  /^## / { inside = ($0 == "## Using it from Swift") }
  inside && /^```swift$/ { n++; code = ""; block = 1; next }
  block && /^```$/ {
    block = 0
    if (code ~ /@Test/) file = dir "/Tests/ReadmeTests/readme-" n ".swift"
    else { system("mkdir -p " dir "/Sources/readme-" n); file = dir "/Sources/readme-" n "/main.swift" }
    printf "%s", code > file; close(file); next
  }
  block { code = code $0 "\n" }
' README.md
blocks=$(ls "$work/app/Sources" | grep -c '^readme-' || true)
tests=$(ls "$work/app/Tests/ReadmeTests" | grep -c '^readme-' || true)
[ "$blocks" -ge 3 ] && [ "$tests" -ge 1 ] || { echo "test-as-dependency: README's Swift section gave $blocks programs and $tests tests"; exit 1; }

cd "$work/app"
# A fresh resolution each time: the snapshot's commit is new.
rm -f Package.resolved
export TOCSIN_URL="file://$work/tocsin"
TOCSIN_PROGRAMS=$(ls Sources | tr '\n' ' ')
export TOCSIN_PROGRAMS
env -u TOCSIN_STRICT swift package update >"$work/update.log" 2>&1 || { cat "$work/update.log"; exit 1; }
if ! env -u TOCSIN_STRICT swift build -c release --build-tests >"$work/build.log" 2>&1; then
  grep -E "error" "$work/build.log" | head -20; echo "test-as-dependency: the build failed ($work/build.log)"; exit 1
fi
bin=$(swift build -c release --show-bin-path)
# swift-clocks tells which clock Swift's clocks read through this shim.
cc -shared -fPIC -O2 -Wall -Werror -o "$work/clock-trace.so" shim/clock-trace.c -ldl
passed=0
for program in $(ls Sources); do
  echo "== $program"
  preload=""
  [ "$program" = swift-clocks ] && preload="$work/clock-trace.so"
  # (line-buffered: what a program printed before a hang is seen)
  if ! LD_PRELOAD=$preload timeout 60 stdbuf -oL "$bin/$program"; then echo "test-as-dependency: $program failed"; exit 1; fi
  passed=$((passed + 1))
done
# What must not compile: each folder of Rejected/ is built as a program
# (Package.swift adds the one TOCSIN_REJECTED names), and must fail with
# the error its "// error:" line names.
for rejected in $(ls Rejected); do
  if TOCSIN_REJECTED=$rejected env -u TOCSIN_STRICT swift build -c release --target "$rejected" >"$work/rejected.log" 2>&1; then
    echo "test-as-dependency: Rejected/$rejected compiled"; exit 1
  fi
  expected=$(sed -n 's|^// error: ||p' "Rejected/$rejected/main.swift")
  if ! grep -qF "$expected" "$work/rejected.log"; then
    grep error "$work/rejected.log" | head -5; echo "test-as-dependency: Rejected/$rejected failed, but not with: $expected"; exit 1
  fi
  echo "== $rejected: does not compile, as it must ($expected)"
  passed=$((passed + 1))
done
env -u TOCSIN_STRICT swift test -c release --skip-build 2>&1 | grep -E "✔ Test run|✘|error" | tee "$work/tests.log"
grep -q "✔ Test run" "$work/tests.log" || exit 1
echo "test-as-dependency: Tocsin built in release as a package's dependency (TocsinNotify too); its programs and the README's examples:"
echo "test-as-dependency: $passed passed, 0 failed"
