#!/usr/bin/env bash
# Runs every test (make test), after installing what they need
# (scripts/install-deps.sh). The steps, in order:
#   test-swift         Swift tests of the engine, the command's parsing, the notifier;
#                      the DocC catalog built, warnings as errors
#   test-as-dependency Tocsin built as a Swift package's dependency (file:// URL), the README's Swift examples run
#   test-c             C tests of libtocsin.so in all three modes; the notifier's C ABI under bad input
#   test-instructions  instructions per call (callgrind) against bench/instructions.baseline (+10 % fails)
#   test-stress        8 threads on one engine; a million create/start/cancel/free cycles
#   test-sanitizers    the C tests, the stress test and the Swift tests again under
#                      ThreadSanitizer and AddressSanitizer (instrumented rebuilds)
#   test-fuzz          libFuzzer on the C ABI for FUZZ_SECONDS (30)
#   test-crash         saving under SIGKILL, 300 kills
#   test-abi           exported symbols against the headers, needed libraries, sonames;
#                      bindings/contract/abi.json current (scripts/gen-contract.py --check)
#                      and the contract's scenarios through the C header
#   test-examples      the C examples and the README's example through pkg-config
#   test-python        mypy --strict and the binding's tests (its prototypes against
#                      bindings/contract/abi.json, the contract's scenarios)
#   test-python-versions  mypy --strict and the binding's tests on each of CPython
#                      3.9-3.13 (pyenv's), two at a time; a missing one fails
#   test-rust          the Rust crates: tocsin-sys against bindings/contract/abi.json, fmt,
#                      clippy, cargo test (tokio from Debian; the contract's scenarios through
#                      the safe crate), rustdoc, valgrind memcheck, ThreadSanitizer (nightly,
#                      on the TSan-built library)
#   test-node          the Node.js addon built with -Werror against the header, its C
#                      calls against bindings/contract/abi.json, the contract's
#                      scenarios, the real loop, workers, misuse (node --test)
#   test-cli           the command under a pseudo-terminal and in scripts
#   test-service       the timer service on private buses (no desktop), the
#                      command as its client, full and read-only disks, the
#                      README's and docs' code blocks
#   test-desktop       the notifier and the command in a headless desktop session
#   test-python-install  a clean pip install and the Python examples; the same wheel on
#                      Python 3.9 and 3.13, 10,000 countdowns each getting their FINISH
#   test-debian        make wheel and make deb, then both on a fresh Debian 12
#                      root without Swift, and the wheel on Debian 11
#                      (debootstrap; needs root)
# Each step ends with a closing line ("N passed, N failed", pytest's, or
# swift test's); the last line totals them: "total: N passed, N failed".
# The sanitizer steps run tests counted already: their lines are marked
# "thread sanitizer:" / "address sanitizer:" and totalled apart.
# `make check` is the fast subset for a built tree (see the README). A line
# "step times (s): test-swift=75 …" tells where the time went.
set -uo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh || exit 1
log=$(mktemp)
# The fresh Debian roots of test-debian, made meanwhile: debootstrap waits on
# the mirror, not the processor (test-debian waits for them, or makes them
# itself if this failed).
mkdir -p out/debian
scripts/test-debian.sh --roots > out/debian/roots.log 2>&1 &
roots=$!
trap 'rm -f "$log"; kill "$roots" 2>/dev/null' EXIT
# The steps of `make test`, one make each, so each one's time is known; like
# `make test`, the first step that fails ends the run.
steps=$(make --no-print-directory -s test-steps)
[ -n "$steps" ] || { echo "scripts/test.sh: make test-steps named no step"; exit 1; }
times=()
status=0
for step in $steps; do
  began=$(date +%s)
  make --no-print-directory "$step" 2>&1 | tee -a "$log"
  status=${PIPESTATUS[0]}
  times+=("$step $(( $(date +%s) - began ))")
  [ "$status" -eq 0 ] || break
done
[ "$status" -eq 0 ] && echo "make test: all steps passed" | tee -a "$log"
# Where the time goes (CI's budget is a whole run; see "How it is tested").
printf 'step times (s):'; printf ' %s' "${times[@]/ /=}"; echo
awk -v status="$status" '
  function count(line, into,    i, n, words) {       # "N passed, N failed", pytest, swift test
    if (match(line, /Test run with [0-9]+ tests?/)) {
      n = substr(line, RSTART + 14, RLENGTH - 14) + 0
      if (line ~ /passed/) into["passed"] += n; else if (line ~ /failed/) into["failed"] += n
      return
    }
    if (line ~ /^([A-Za-z-]+( \([A-Za-z]+\))?: )?[0-9]+ passed, [0-9]+ failed(, [0-9]+ skipped)?$/ ||
        line ~ /^(=+ )?[0-9]+ (passed|failed|skipped).* in [0-9.]+s/) {
      n = split(line, words, /[ ,]+/)
      for (i = 1; i < n; i++) {
        if (words[i + 1] ~ /^passed/) into["passed"] += words[i]
        if (words[i + 1] ~ /^failed/) into["failed"] += words[i]
        if (words[i + 1] ~ /^skipped/) into["skipped"] += words[i]
      }
    }
  }
  /^(thread|address) sanitizer: / { line = $0; sub(/^(thread|address) sanitizer: /, "", line); count(line, rerun); next }
  { count($0, total) }
  END {
    if (status != 0 && total["failed"] == 0) total["failed"] = 1
    printf "sanitizer re-runs of those tests: %d passed, %d failed, %d skipped\n", rerun["passed"], rerun["failed"], rerun["skipped"]
    printf "total: %d passed, %d failed, %d skipped\n", total["passed"], total["failed"], total["skipped"]
  }' "$log"
exit "$status"
