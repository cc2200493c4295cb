#!/usr/bin/env bash
# Runs every test: Swift engine tests, the C ABI tests against the real
# libtocsin.so, the header/symbol check, the C examples built through an
# installed copy and pkg-config, the Python binding's tests, and a clean pip
# install of the binding with its examples. Installs what it needs first. The last line
# totals what ran: "total: N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh || exit 1
log=$(mktemp)
trap 'rm -f "$log"' EXIT
make --no-print-directory test 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
awk -v status="$status" '
  /Test run with [0-9]+ tests?.* passed/ { match($0, /with [0-9]+/); passed += substr($0, RSTART + 5, RLENGTH - 5) }
  /Test run with [0-9]+ tests?.* failed/ { match($0, /with [0-9]+/); failed += substr($0, RSTART + 5, RLENGTH - 5) }
  /^[0-9]+ passed, [0-9]+ failed$/ { passed += $1; failed += $3 }
  /^(=+ )?[0-9]+ (passed|failed).* in [0-9.]+s/ {          # pytest
    for (i = 1; i < NF; i++) {
      if ($(i + 1) ~ /^passed/) passed += $i
      if ($(i + 1) ~ /^failed/) failed += $i
    }
  }
  END {
    if (status != 0 && failed == 0) failed = 1
    printf "total: %d passed, %d failed\n", passed, failed
  }' "$log"
exit "$status"
