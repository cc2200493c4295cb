#!/usr/bin/env bash
# Tocsin against the floor and libuv on the one-shot workload, and the Python
# binding against asyncio: the figures issue 23 sets targets for, from one
# run, each as a median of REPS runs with the engines rotated, and each as a
# ratio. Builds what it needs (a release libtocsin.so, bench/oneshot.c).
# About 3 minutes with the defaults. Not a test: nothing passes or fails.
#   bench/floor.sh [REPS] [N...]      (default: 5 runs of 1000 100000 1000000)
set -euo pipefail
cd "$(dirname "$0")/.."
reps=${1:-5}
shift || true
sizes=(${@:-1000 100000 1000000})
make --no-print-directory lib CONFIG=release > /dev/null
mkdir -p out/bench
cc bench/oneshot.c -O2 -Wall -Iinclude $(pkg-config --cflags --libs glib-2.0 libuv) -lm -lpthread \
  -Lout/release/lib -ltocsin -o out/bench/oneshot
export LD_LIBRARY_PATH=$PWD/out/release/lib TOCSIN_LIBRARY=$PWD/out/release/lib/libtocsin.so.0
log=out/bench/floor.txt
: > "$log"
rotated() { local k=$(($1 % ($# - 1))); shift; local all=("$@"); echo "${all[@]:k}" "${all[@]:0:k}"; }
for rep in $(seq "$reps"); do
  for n in "${sizes[@]}"; do
    for engine in $(rotated "$rep" floor tocsin tocsin-1 uv asyncio tocsin-py); do
      case $engine in
        asyncio | tocsin-py)
          if [ "$n" -le 100000 ]; then
            PYTHONPATH=bindings/python python3 bench/python_bench.py "$engine" "$n" "$rep" >> "$log"
          fi ;;
        *) out/bench/oneshot "$engine" "$n" "$rep" >> "$log" ;;
      esac
    done
  done
done
echo "Machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(uname -r);" \
  "$reps runs, medians (min–max); libuv $(pkg-config --modversion libuv), Python $(python3 -c 'import platform; print(platform.python_version())')"
python3 - "$log" <<'PY'
import statistics, sys
rows = [dict(kv.split("=", 1) for kv in line.split()) for line in open(sys.argv[1]) if "=" in line]
def values(engine, n, key):
    return sorted(float(r[key]) for r in rows if r["engine"] == engine and int(r["n"]) == n)
def median(engine, n, key):
    found = values(engine, n, key)
    return statistics.median(found) if found else None
def cell(engine, n, key):
    found = values(engine, n, key)
    if not found:
        return "n/a"
    text = f"{statistics.median(found):,.0f}"
    return text + (f" ({found[0]:,.0f}–{found[-1]:,.0f})" if found[0] > 0 and found[-1] > 1.5 * found[0] else "")
def ratio(a, b):
    return "n/a" if a is None or b in (None, 0) else f"{a / b:.2f}×"
sizes = sorted({int(r["n"]) for r in rows})
engines = ["floor", "tocsin", "tocsin-1", "uv"]
print("\n| N | measure | " + " | ".join(engines) + " | ratio | target |")
print("|---" * (len(engines) + 4) + "|")
for n in sizes:
    m = lambda e, k: median(e, n, k)
    lines = [
        ("schedule, ns", "schedule_ns", f"tocsin-1 / floor {ratio(m('tocsin-1', 'schedule_ns'), m('floor', 'schedule_ns'))}; "
         f"tocsin / uv {ratio(m('tocsin', 'schedule_ns'), m('uv', 'schedule_ns'))}", "≤ 2× floor; ≤ 0.8× uv"),
        ("cancel, ns", "cancel_ns", "", "≤ 80 ns"),
        ("lateness p99, µs", "late_p99_us", f"tocsin / floor {ratio(m('tocsin', 'late_p99_us'), m('floor', 'late_p99_us'))}",
         "≤ 1.5× (100k), ≤ 2× (1M)"),
        ("early firings", "early", "", "0"),
        ("bytes per armed timer", "bytes", "", "≤ 80"),
    ]
    for label, key, note, target in lines:
        print(f"| {n:,} | {label} | " + " | ".join(cell(e, n, key) for e in engines) + f" | {note} | {target} |")
python_sizes = [n for n in sizes if median("asyncio", n, "schedule_ns") is not None]
if python_sizes:
    print("\n| N | Python, ns per timer armed | asyncio `call_later` | tocsin `engine.after` | ratio |")
    print("|---|---|---:|---:|---:|")
    for n in python_sizes:
        print(f"| {n:,} | schedule | {cell('asyncio', n, 'schedule_ns')} | {cell('tocsin-py', n, 'schedule_ns')} | "
              f"{ratio(median('tocsin-py', n, 'schedule_ns'), median('asyncio', n, 'schedule_ns'))} |")
PY
