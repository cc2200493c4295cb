#!/usr/bin/env bash
# Leeway: 100 timers ticking every second at scattered phases (bench/leeway.c,
# and bench/dispatch's `leeway` for DispatchSourceTimer), and how often the
# process wakes for them. Prints one markdown table of medians of REPS runs,
# each engine in turn (rotated per run). Not a test: nothing passes or fails.
#   bench/leeway.sh [REPS] [SECONDS]     (default 3 runs of 10 s each)
set -euo pipefail
cd "$(dirname "$0")/.."
reps=${1:-3}
seconds=${2:-10}
scripts/install-deps.sh
command -v pkg-config > /dev/null && pkg-config --exists libuv || {
  echo "bench: installing libuv1-dev"; sudo_=""; [ "$(id -u)" -ne 0 ] && sudo_=sudo
  $sudo_ apt-get install -y -qq --no-install-recommends libuv1-dev > /dev/null; }
make --no-print-directory lib CONFIG=release > /dev/null
mkdir -p out/bench
cc bench/leeway.c -O2 -Wall -Iinclude $(pkg-config --cflags --libs glib-2.0 libuv) -lpthread \
  -Lout/release/lib -ltocsin -o out/bench/leeway
(cd bench/dispatch && swift build -c release > /dev/null)
dispatch="$(cd bench/dispatch && swift build -c release --show-bin-path)/dispatch-bench"
export LD_LIBRARY_PATH=$PWD/out/release/lib

log=out/bench/leeway.txt
: > "$log"
engines=(tocsin-0 tocsin-1 glib glib-s uv dispatch-0 dispatch-1000)
for rep in $(seq "$reps"); do
  k=$((rep % ${#engines[@]}))
  for engine in "${engines[@]:k}" "${engines[@]:0:k}"; do
    case $engine in
      dispatch-*) "$dispatch" leeway "${engine#dispatch-}" "$seconds" >> "$log" ;;
      *) out/bench/leeway "$engine" "$seconds" >> "$log" ;;
    esac || echo "bench: failed: $engine" >&2
  done
done

echo "Machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(uname -r)"
echo "Runs: $reps of ${seconds} s per engine, medians (min–max when max > 1.5 x min). 100 timers, 1 s period."
python3 - "$log" <<'EOF'
import re, statistics, sys
names = {
    "tocsin-0": "Tocsin, leeway 0", "tocsin-1": "Tocsin, leeway 1 s",
    "glib": "GLib g_timeout_add(1000)", "glib-s": "GLib g_timeout_add_seconds(1)",
    "uv": "libuv uv_timer_start (no leeway)",
    "dispatch-0": "DispatchSourceTimer, leeway 0", "dispatch-1000": "DispatchSourceTimer, leeway 1 s",
}
rows = {}
for line in open(sys.argv[1]):
    fields = dict(part.split("=", 1) for part in line.split())
    rows.setdefault(fields["engine"], []).append(fields)
def cell(runs, key, digits):
    values = [float(r[key]) for r in runs]
    median = statistics.median(values)
    text = f"{median:.{digits}f}"
    low, high = min(values), max(values)
    if low > 0 and high > 1.5 * low:
        text += f" ({low:.{digits}f}–{high:.{digits}f})"
    return text
print()
print("| engine | wake-ups/s | ticks/s | lateness p50 (ms) | p99 (ms) | max (ms) |")
print("|---|---:|---:|---:|---:|---:|")
for engine, name in names.items():
    runs = rows.get(engine)
    if not runs:
        continue
    print(f"| {name} | {cell(runs, 'wakeups_per_s', 1)} | {cell(runs, 'ticks_per_s', 1)} | "
          f"{cell(runs, 'late_p50_ms', 3)} | {cell(runs, 'late_p99_ms', 3)} | {cell(runs, 'late_max_ms', 3)} |")
EOF
