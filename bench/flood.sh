#!/usr/bin/env bash
# Fairness under a flood (bench/flood.c): one client pipelines N `Add`s
# while another calls `ListColumns` every 50 ms, on a private session bus
# (dbus-daemon --session: the session bus's limits), against the service
# of this tree and of REF (built in a worktree), alternating, ROUNDS times
# each; both release builds, the state on this disk (fdatasync is real).
# Prints each run's line, then the medians of each column per build.
# Not a test.   bench/flood.sh [REF] [N] [ROUNDS]    (default: d755c72 12000 3)
set -euo pipefail
cd "$(dirname "$0")/.."
ref=${1:-d755c72}
n=${2:-12000}
rounds=${3:-3}
scripts/install-deps.sh
mkdir -p out/bench
work=$(mktemp -d "$PWD/out/bench/flood.XXXXXX")
trap 'kill $(jobs -p) 2> /dev/null || true; git worktree remove --force "$work/ref" 2> /dev/null || true; rm -rf "$work"' EXIT
git worktree add -q --detach "$work/ref" "$ref"
swift build -c release --product tocsin > /dev/null
(cd "$work/ref" && swift build -c release --product tocsin > /dev/null)
cc -O2 -Wall bench/flood.c $(pkg-config --cflags --libs gio-2.0) -o out/bench/flood
for round in $(seq "$rounds"); do
  for which in "$ref" now; do
    root=$PWD
    [ "$which" = now ] || root=$work/ref
    state=$(mktemp -d "$work/state.XXXXXX")
    { read -r address; read -r bus_pid; } < <(dbus-daemon --session --fork --print-address=1 --print-pid=1)
    DBUS_SESSION_BUS_ADDRESS=$address "$root/.build/release/tocsin" service --quiet --idle-exit 0 \
      --state "$state/timers.json" &
    service=$!
    DBUS_SESSION_BUS_ADDRESS=$address gdbus wait --session --timeout 10 dev.tocsin.Timers
    echo "$which $(DBUS_SESSION_BUS_ADDRESS=$address out/bench/flood "$n")" | tee -a "$work/lines"
    kill "$service"; wait "$service" 2> /dev/null || true
    kill "$bus_pid"
    rm -rf "$state"
  done
done
python3 - "$work/lines" <<'TABLE'
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    which, *fields = line.split()
    runs.setdefault(which, []).append({k: float(v) for k, v in (f.split("=") for f in fields)})
columns = ["adds_per_s", "list_p50_ms", "list_p99_ms", "list_max_ms", "rss_before_kb", "rss_after_kb", "refused"]
print("| build | " + " | ".join(columns) + " |")
print("|---|" + "---:|" * len(columns))
for which, rows in runs.items():
    print(f"| {which} (median of {len(rows)}) | " + " | ".join(f"{statistics.median(r[c] for r in rows):.0f}"
          if c in ("adds_per_s", "rss_before_kb", "rss_after_kb", "refused")
          else f"{statistics.median(r[c] for r in rows):.1f}" for c in columns) + " |")
TABLE
