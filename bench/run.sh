#!/usr/bin/env bash
# Builds a release libtocsin and the benchmark, runs every engine on the same
# seeded workloads, and prints one markdown table per workload with medians
# of REPS runs (min–max where the spread is wide). Not a test: nothing here
# passes or fails on speed.
#   bench/run.sh [REPS] [N...]        (default: 3 runs of 1000 100000 1000000)
set -euo pipefail
cd "$(dirname "$0")/.."
reps=${1:-3}
shift || true
sizes=("${@:-1000 100000 1000000}")
sizes=(${sizes[@]})
scripts/install-deps.sh
command -v pkg-config > /dev/null && pkg-config --exists libuv || {
  echo "bench: installing libuv1-dev"; sudo_=""; [ "$(id -u)" -ne 0 ] && sudo_=sudo
  $sudo_ apt-get install -y -qq --no-install-recommends libuv1-dev > /dev/null; }
make --no-print-directory lib CONFIG=release > /dev/null
mkdir -p out/bench
cc -O2 -Wall -Iinclude bench/oneshot.c $(pkg-config --cflags --libs glib-2.0 libuv) -lm \
  -Lout/release/lib -ltocsin -o out/bench/oneshot
log=out/bench/results.txt
: > "$log"
for n in "${sizes[@]}"; do
  for engine in floor tocsin uv glib; do
    for rep in $(seq "$reps"); do
      LD_LIBRARY_PATH=out/release/lib out/bench/oneshot "$engine" "$n" "$rep" >> "$log"
    done
  done
done
echo "Machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(uname -r)"
echo "Runs: $reps per cell, medians (min–max when max > 1.5 x min). Engines: floor = binary heap + one timerfd, no locks;"
echo "tocsin = libtocsin.so through its C ABI, DEFAULT mode; uv = libuv $(pkg-config --modversion libuv); glib = GLib $(pkg-config --modversion glib-2.0)."
python3 - "$log" <<'PY'
import statistics, sys
rows = [dict(kv.split("=") for kv in line.split()) for line in open(sys.argv[1])]
def cell(values):
    values = sorted(values)
    median = statistics.median(values)
    text = f"{median:,.0f}" if median >= 10 else f"{median:.1f}"
    if values[0] > 0 and values[-1] > 1.5 * values[0]:
        text += f" ({values[0]:,.0f}–{values[-1]:,.0f})"
    return text
tables = [
    ("One-shot: schedule (ns per create+arm)", "schedule_ns"),
    ("One-shot: lateness p50 (µs)", "late_p50_us"),
    ("One-shot: lateness p99 (µs)", "late_p99_us"),
    ("One-shot: lateness max (µs)", "late_max_us"),
    ("One-shot: firings before their deadline", "early"),
    ("One-shot: RSS per armed timer (bytes, harness included)", "bytes"),
    ("One-shot: CPU seconds (whole run)", "cpu_s"),
    ("Cancel: ns per cancel", "cancel_ns"),
]
sizes = sorted({int(r["n"]) for r in rows})
engines = ["floor", "tocsin", "uv", "glib"]
for title, key in tables:
    print(f"\n### {title}\n")
    print("| N | " + " | ".join(engines) + " |")
    print("|---" * (len(engines) + 1) + "|")
    for n in sizes:
        cells = [cell([float(r[key]) for r in rows if r["engine"] == e and int(r["n"]) == n]) for e in engines]
        print(f"| {n:,} | " + " | ".join(cells) + " |")
PY
