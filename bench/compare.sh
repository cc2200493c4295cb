#!/usr/bin/env bash
# The side-by-side every optimisation or suspected regression is judged by:
# builds libtocsin.so of REF (a git worktree under out/compare) and of the
# working tree, then runs the timing workloads on both, the two alternated
# run by run, and prints medians, the ratio now/REF, and libuv's for scale;
# then the instructions per call of both (bench/instructions.sh).
#   bench/compare.sh REF [REPS] [N]     (default: 7 runs, 1,000,000 timers)
# Workloads (bench/oneshot.c, bench/workloads.c): schedule with the three
# calls (countdown_new + set_callback + start) and with the one call
# (tocsin_countdown_start), cancel, the firing lateness p99, and 4 threads
# contending for one engine. Not a test: nothing passes or fails on speed.
set -euo pipefail
cd "$(dirname "$0")/.."
ref=${1:?usage: bench/compare.sh REF [REPS] [N]}
reps=${2:-7}
n=${3:-1000000}
pkg-config --exists libuv glib-2.0 || {
  echo "compare: installing libuv1-dev"; sudo_=""; [ "$(id -u)" -ne 0 ] && sudo_=sudo
  $sudo_ apt-get install -y -qq --no-install-recommends libuv1-dev libglib2.0-dev > /dev/null; }
rev=$(git rev-parse --short "$ref")
tree=out/compare/$rev
if [ ! -f "$tree/out/debug/lib/libtocsin.so.0" ]; then
  rm -rf "$tree"; git worktree prune
  git worktree add -f "$tree" "$rev" > /dev/null
  make -C "$tree" --no-print-directory lib > /dev/null
fi
make --no-print-directory lib > /dev/null
mkdir -p out/bench
libs=("$PWD/$tree/out/debug/lib" "$PWD/out/debug/lib")
names=("$rev" "now")
flags=(-O2 -Wall -Iinclude $(pkg-config --cflags --libs glib-2.0 libuv) -lm -lpthread -Lout/debug/lib -ltocsin)
cc bench/oneshot.c "${flags[@]}" -o out/bench/oneshot
cc bench/workloads.c "${flags[@]}" -o out/bench/workloads
results=out/bench/compare.txt
: > "$results"
for ((rep = 0; rep < reps; rep++)); do
  order=(0 1); ((rep % 2)) && order=(1 0)
  for i in "${order[@]}"; do
    for engine in tocsin tocsin-1; do
      echo "lib=${names[$i]} $(LD_LIBRARY_PATH=${libs[$i]} out/bench/oneshot "$engine" "$n" "$rep")" >> "$results"
    done
    echo "lib=${names[$i]} $(LD_LIBRARY_PATH=${libs[$i]} out/bench/workloads contention tocsin)" >> "$results"
  done
  echo "lib=uv $(LD_LIBRARY_PATH=${libs[1]} out/bench/oneshot uv "$n" "$rep")" >> "$results"
done
python3 - "$results" "$rev" "$reps" "$n" <<'PY'
import statistics, sys
path, rev, reps, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
rows = [dict(kv.split("=", 1) for kv in line.split()) for line in open(path)]
def median(lib, engine, key, workload=None):
    values = [float(r[key]) for r in rows if r["lib"] == lib and r.get("engine") == engine and key in r
              and r.get("workload") == workload]
    return statistics.median(values) if values else float("nan")
print(f"| {n:,} timers, median of {reps} runs, alternated | {rev} | now | now/{rev} | libuv |")
print("|---|---:|---:|---:|---:|")
cells = [("schedule, three calls (ns)", "tocsin", "schedule_ns", None), ("schedule, one call (ns)", "tocsin-1", "schedule_ns", None),
         ("cancel (ns)", "tocsin", "cancel_ns", None), ("lateness p99, three calls (µs)", "tocsin", "late_p99_us", None),
         ("4 threads on one engine (M calls/s)", "tocsin", "mops", "contention")]
for label, engine, key, workload in cells:
    old, new = median(rev, engine, key, workload), median("now", engine, key, workload)
    uv = median("uv", "uv", key) if workload is None else float("nan")
    uv_text = f"{uv:,.1f}" if uv == uv else "—"
    print(f"| {label} | {old:,.1f} | {new:,.1f} | {new / old:.2f} | {uv_text} |")
PY
echo
paste <(bench/instructions.sh "$tree/out/debug/lib/libtocsin.so.0" | awk '{print $1, $2}') \
      <(bench/instructions.sh out/debug/lib/libtocsin.so.0 | awk '{print $2}') |
  awk -v rev="$rev" 'NR == 1 { printf "| instructions per call | %s | now | now/%s |\n|---|---:|---:|---:|\n", rev, rev; next }
                     { printf "| %s | %s | %s | %.2f |\n", $1, $2, $3, ($2 > 0 ? $3 / $2 : 0) }'
