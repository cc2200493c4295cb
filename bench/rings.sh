#!/usr/bin/env bash
# 1,000 calendar alarms ringing in the same second (bench/rings.py), against
# the service of this tree and of REF (built in a worktree), alternating,
# ROUNDS times each (bench/service-runs.sh). Besides rings.py's line, the
# service's fdatasync and fsync calls during the rings (strace -c, only
# those calls traced). Prints each run's line, then the medians per build.
# Not a test.   bench/rings.sh [REF] [N] [ROUNDS]    (default: e66e1b7 1000 3)
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/service-runs.sh
ref=${1:-e66e1b7}
n=${2:-1000}
rounds=${3:-3}
command -v strace > /dev/null || apt-get install -y strace > /dev/null
service_builds rings "$ref"
for round in $(seq "$rounds"); do
  for which in "$ref" now; do
    root=$PWD
    [ "$which" = now ] || root=$work/ref
    service_up "$root"
    DBUS_SESSION_BUS_ADDRESS=$address out/venv/bin/python bench/rings.py "$n" > "$state/line" &
    bench=$!
    sleep 10  # the alarms are added (the ring is 15 s after the bench started)
    strace -f -c -e trace=fdatasync,fsync --seccomp-bpf -p "$service" -o "$state/strace" &
    tracer=$!
    wait "$bench"
    kill -INT "$tracer"; wait "$tracer" 2> /dev/null || true
    syncs=$(awk '$NF == "fdatasync" || $NF == "fsync" { total += $4 } END { print total + 0 }' "$state/strace")
    echo "$which $(cat "$state/line") syncs=$syncs" | tee -a "$work/lines"
    service_down
  done
done
medians finished last_finished_s syncs list_calls list_p50_ms list_p99_ms list_max_ms
