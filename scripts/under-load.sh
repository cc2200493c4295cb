#!/usr/bin/env bash
# Runs the timing-sensitive suites ROUNDS times in a row (default 5) while
# stress-ng keeps both cores busy: the desktop session, the service on
# private buses and the command. Stops at the first failure. Needs a built
# tree (make check or scripts/test.sh first) and stress-ng (installed if
# missing). Prints one line per suite and round, then a total.
# Usage: scripts/under-load.sh [ROUNDS] [STRESSORS]   (STRESSORS: --cpu N, default the number of cores)
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
  for suite in test-desktop test-service test-cli; do
    began=$(date +%s)
    log=out/under-load-$suite-$round.log
    if make --no-print-directory "$suite" > "$log" 2>&1; then status=passed; passed=$((passed + 1)); else status=failed; failed=$((failed + 1)); fi
    echo "round $round $suite: $status in $(( $(date +%s) - began )) s ($(grep -E '[0-9]+ passed' "$log" | tail -1 | sed 's/=//g; s/^ *//'))"
    [ "$status" = passed ] || { echo "  see $log"; break 2; }
  done
done
echo "under load: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
