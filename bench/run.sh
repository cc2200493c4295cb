#!/usr/bin/env bash
# Builds a release libtocsin and the benchmarks, runs every engine on the same
# seeded workloads, and prints one markdown table per measure with medians of
# REPS runs (min–max where the spread is wide). Not a test: nothing here
# passes or fails on speed.
#   bench/run.sh [REPS] [N...]        (default: 5 runs of 1000 100000 1000000)
# The Python engines run at N <= 100,000 (a million Python timers take minutes).
set -euo pipefail
cd "$(dirname "$0")/.."
reps=${1:-5}  # 5, not 3: on a shared machine a 3-run median of a p99 can flip
shift || true
sizes=("${@:-1000 100000 1000000}")
sizes=(${sizes[@]})
scripts/install-deps.sh
command -v pkg-config > /dev/null && pkg-config --exists libuv || {
  echo "bench: installing libuv1-dev"; sudo_=""; [ "$(id -u)" -ne 0 ] && sudo_=sudo
  $sudo_ apt-get install -y -qq --no-install-recommends libuv1-dev > /dev/null; }
make --no-print-directory lib CONFIG=release > /dev/null
mkdir -p out/bench
flags=(-O2 -Wall -Iinclude $(pkg-config --cflags --libs glib-2.0 libuv) -lm -lpthread -Lout/release/lib -ltocsin)
cc bench/oneshot.c "${flags[@]}" -o out/bench/oneshot
cc bench/workloads.c "${flags[@]}" -o out/bench/workloads
cc bench/burst.c "${flags[@]}" -o out/bench/burst  # a tool, not in the tables (bench/README.md)
cc bench/warm.c "${flags[@]}" -o out/bench/warm  # a tool, not in the tables (bench/README.md)
(cd bench/dispatch && swift build -c release > /dev/null)
dispatch="$(cd bench/dispatch && swift build -c release --show-bin-path)/dispatch-bench"
export LD_LIBRARY_PATH=$PWD/out/release/lib TOCSIN_LIBRARY=$PWD/out/release/lib/libtocsin.so.0
python=(env PYTHONPATH=bindings/python python3 bench/python_bench.py)

log=out/bench/results.txt
: > "$log"
run() { "$@" >> "$log" || echo "bench: failed: $*" >&2; }
# The engines in turn, starting one further along each run: whatever the
# machine does after a heavy run (reclaiming its memory) falls on each alike.
rotated() { local k=$(($1 % ($# - 1))); shift; local all=("$@"); echo "${all[@]:k}" "${all[@]:0:k}"; }
for rep in $(seq "$reps"); do
  for n in "${sizes[@]}"; do
    for engine in $(rotated "$rep" floor tocsin tocsin-1 uv glib dispatch asyncio tocsin-py tocsin-py-timer); do
      case $engine in
        dispatch) run "$dispatch" oneshot "$n" "$rep" ;;
        asyncio | tocsin-py*) if [ "$n" -le 100000 ]; then run "${python[@]}" "$engine" "$n" "$rep"; fi ;;
        *) run out/bench/oneshot "$engine" "$n" "$rep" ;;
      esac
    done
  done
  for workload in ticks idle contention; do
    for engine in $(rotated "$rep" floor tocsin uv glib dispatch); do
      if [ "$engine" = dispatch ]; then run "$dispatch" "$workload"; else run out/bench/workloads "$workload" "$engine"; fi
    done
  done
done

echo "Machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(uname -r)"
echo "Runs: $reps per cell, medians (min–max when max > 1.5 x min)."
echo "Engines: floor = binary heap + one timerfd, no locks; tocsin = libtocsin.so through its C ABI, DEFAULT mode,"
echo "countdown_new + set_callback + start; tocsin-1 = the same with one tocsin_countdown_start call, FINISH only;"
echo "uv = libuv $(pkg-config --modversion libuv); glib = GLib $(pkg-config --modversion glib-2.0);"
echo "dispatch = DispatchSourceTimer, one per timer (Swift $(swift --version 2>&1 | grep -o 'version [0-9.]*' | head -1 | cut -d' ' -f2));"
echo "asyncio = loop.call_later; tocsin-py = the Python binding's tocsin.aio.Engine with engine.after(s, handler, i);"
echo "tocsin-py-timer = the same engine with countdown() + on_finish() + start() (Python $(python3 -c 'import platform; print(platform.python_version())'))."
python3 - "$log" <<'PY'
import math, statistics, sys
rows = [dict(kv.split("=", 1) for kv in line.split()) for line in open(sys.argv[1]) if "=" in line]
def cell(values):
    values = sorted(v for v in values if not math.isnan(v))
    if not values:
        return "n/a"
    median = statistics.median(values)
    text = f"{median:,.0f}" if abs(median) >= 10 else f"{median:.2f}"
    if values[0] > 0 and values[-1] > 1.5 * values[0]:
        low, high = (f"{v:,.0f}" if abs(v) >= 10 else f"{v:.2f}" for v in (values[0], values[-1]))
        text += f" ({low}–{high})"
    return text
def table(title, key, workload, engines, by_n):
    picked = [r for r in rows if r.get("workload", "oneshot") == workload]
    print(f"\n### {title}\n")
    if by_n:
        print("| N | " + " | ".join(engines) + " |")
        print("|---" * (len(engines) + 1) + "|")
        for n in sorted({int(r["n"]) for r in picked}):
            cells = [cell([float(r[key]) for r in picked if r["engine"] == e and int(r["n"]) == n]) for e in engines]
            print(f"| {n:,} | " + " | ".join(cells) + " |")
    else:
        print("| " + " | ".join(engines) + " |")
        print("|---" * len(engines) + "|")
        print("| " + " | ".join(cell([float(r[key]) for r in picked if r["engine"] == e]) for e in engines) + " |")
oneshot = ["floor", "tocsin", "tocsin-1", "uv", "glib", "dispatch", "asyncio", "tocsin-py", "tocsin-py-timer"]
for title, key in [
    ("One-shot: schedule (ns per create+arm)", "schedule_ns"),
    ("One-shot: lateness p50 (µs)", "late_p50_us"),
    ("One-shot: lateness p99 (µs)", "late_p99_us"),
    ("One-shot: lateness max (µs)", "late_max_us"),
    ("One-shot: firings before their deadline", "early"),
    ("One-shot: RSS per armed timer (bytes, harness included)", "bytes"),
    ("One-shot: CPU seconds (whole run)", "cpu_s"),
    ("Cancel: ns per cancel", "cancel_ns"),
]:
    table(title, key, "oneshot", oneshot, True)
others = ["floor", "tocsin", "uv", "glib", "dispatch"]
for title, key, workload in [
    ("Ticks (10 ms, 1000 ticks): drift at the last tick (ms)", "drift_ms", "ticks"),
    ("Ticks: lateness p99 (µs)", "late_p99_us", "ticks"),
    ("Ticks: interval jitter p99 (µs)", "jitter_p99_us", "ticks"),
    ("Idle (one timer 5 s away): context switches per second", "switches_per_s", "idle"),
    ("Idle: that timer's lateness (µs)", "late_us", "idle"),
    ("Contention (4 threads arm and cancel on one engine): million pairs per second", "mops", "contention"),
]:
    table(title, key, workload, others, False)
PY
