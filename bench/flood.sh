#!/usr/bin/env bash
# Fairness under a flood (bench/flood.c): one client pipelines N `Add`s
# while another calls `ListColumns` every 50 ms, on a private session bus,
# against the service of this tree and of REF (built in a worktree),
# alternating, ROUNDS times each (bench/service-runs.sh). Prints each run's
# line, then the medians of each column per build. MANAGER=MS: a stand-in
# user manager on the bus, answering the service's reads of the session's
# locale after MS ms.
# Not a test.   bench/flood.sh [REF] [N] [ROUNDS]    (default: d755c72 12000 3)
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/service-runs.sh
ref=${1:-d755c72}
n=${2:-12000}
rounds=${3:-3}
service_builds flood "$ref"
cc -O2 -Wall bench/flood.c $(pkg-config --cflags --libs gio-2.0) -o out/bench/flood
for round in $(seq "$rounds"); do
  for which in "$ref" now; do
    root=$PWD
    [ "$which" = now ] || root=$work/ref
    service_up "$root"
    echo "$which $(DBUS_SESSION_BUS_ADDRESS=$address out/bench/flood "$n")" | tee -a "$work/lines"
    service_down
  done
done
medians adds_per_s list_p50_ms list_p99_ms list_max_ms rss_before_kb rss_after_kb refused
