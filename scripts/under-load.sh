#!/usr/bin/env bash
# Runs the suites ROUNDS times in a row (default 5) while stress-ng keeps
# every core busy: by default every step of `make check` (Swift, C, ABI,
# Python, the command, the service on private buses) and the desktop
# session; SUITES="test-cli test-service" picks others. Stops at the first
# failure. Needs a built tree (make check or scripts/test.sh first) and
# stress-ng (installed if missing). Prints one line per suite and round,
# then a total.
# Usage: [SUITES="..."] scripts/under-load.sh [ROUNDS] [STRESSORS]   (STRESSORS: --cpu N, default the number of cores)
set -uo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5}
stressors=${2:-$(nproc)}
command -v stress-ng >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq stress-ng >/dev/null; } || exit 1
stress-ng --cpu "$stressors" --timeout 0 --quiet &
stress=$!
trap 'kill $stress 2>/dev/null; wait $stress 2>/dev/null' EXIT
passed=0 failed=0
for round in $(seq "$rounds"); do
  for suite in ${SUITES:-test-swift test-c test-abi test-python test-cli test-service test-desktop}; do
    began=$(date +%s)
    log=out/under-load-$suite-$round.log
    if make --no-print-directory "$suite" > "$log" 2>&1; then status=passed; passed=$((passed + 1)); else status=failed; failed=$((failed + 1)); fi
    echo "round $round $suite: $status in $(( $(date +%s) - began )) s ($(grep -E '[0-9]+ passed|Test run with' "$log" | tail -1 | sed 's/=//g; s/^ *//'))"
    [ "$status" = passed ] || { echo "  see $log"; break 2; }
  done
done
echo "under load: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
