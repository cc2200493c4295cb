#!/usr/bin/env bash
# The engine's micro-optimisation against the engine without it, in the
# same run: builds libtocsin.so both ways and runs the same workloads on
# each, rotating the order every round, then prints one markdown table of
# medians with the variant's ratio to the shipped build.
#   bench/variants.sh [REPS]          (default 7; about 12 minutes on 2 cores)
# Builds: shipped = as released (prefault requests on); no-prefault = the
# engine thread never asked to fault in table pages (-D TOCSIN_NO_PREFAULT).
# (The hand-written futex lock was compared the same way, as a third build,
# and replaced by glibc's adaptive mutex: bench/README.md has that table.)
# Workloads: warm = the three calls (new, set_callback, start) on a DEFAULT
# engine's warm tables, ns per timer (bench/warm.c); contention = 8 threads
# arming and cancelling on one engine, million pairs/s (bench/workloads.c);
# cold = oneshot's 100,000 timers in a fresh process, ns per create+arm, and
# cancel, ns per cancel (bench/oneshot.c), and cold1 = 1,000,000 timers
# each started by one tocsin_countdown_start call (FINISH only: no STATE
# events, the case prefaulting was made for); stress = Tests/c/stress with 8
# threads, thousand operations/s. Not a test: nothing passes or fails here.
set -euo pipefail
cd "$(dirname "$0")/.."
reps=${1:-7}
scripts/install-deps.sh
command -v pkg-config > /dev/null && pkg-config --exists libuv || {
  echo "variants: installing libuv1-dev"; sudo_=""; [ "$(id -u)" -ne 0 ] && sudo_=sudo
  $sudo_ apt-get install -y -qq --no-install-recommends libuv1-dev > /dev/null; }
root=out/bench/variants
mkdir -p "$root"
build() {  # NAME CFLAGS SWIFTFLAGS
  mkdir -p "$root/$1/lib"
  VARIANT_CFLAGS=$2 VARIANT_SWIFTFLAGS=$3 scripts/build-embedded.sh "$root/$1/lib/libtocsin.so.0" > /dev/null
}
build shipped "" ""
build no-prefault "" "-D TOCSIN_NO_PREFAULT"
flags=(-O2 -Wall -Iinclude $(pkg-config --cflags --libs glib-2.0 libuv) -lm -lpthread -L"$root/shipped/lib" -l:libtocsin.so.0)
cc bench/warm.c "${flags[@]}" -o "$root/warm"
cc bench/workloads.c "${flags[@]}" -o "$root/workloads"
cc bench/oneshot.c "${flags[@]}" -o "$root/oneshot"
cc -std=c11 -D_GNU_SOURCE -O1 -Iinclude Tests/c/stress/stress.c -L"$root/shipped/lib" -l:libtocsin.so.0 -lpthread \
  -o "$root/stress"

log=$root/results.txt
: > "$log"
variants=(shipped no-prefault)
for rep in $(seq "$reps"); do
  k=$((rep % ${#variants[@]}))
  for variant in "${variants[@]:k}" "${variants[@]:0:k}"; do
    export LD_LIBRARY_PATH=$PWD/$root/$variant/lib
    { "$root/warm" tocsin-default 100000 20 | sed "s/^/variant=$variant workload=warm /"
      "$root/workloads" contention tocsin 8 | sed "s/^/variant=$variant /"
      "$root/oneshot" tocsin 100000 "$rep" | sed "s/^/variant=$variant workload=cold /"
      "$root/oneshot" tocsin-1 1000000 "$rep" | sed "s/^/variant=$variant workload=cold1 /"
      "$root/stress" 8 20000 0 | sed -n "s/^stress: .*; \([0-9]*\) thousand operations\/s/variant=$variant workload=stress kops=\1/p"
    } >> "$log"
  done
done

echo "Machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(uname -r)"
echo "Runs: $reps per cell, medians (min–max); ratio = the variant's median / shipped's (time: above 1 is slower;"
echo "throughput: below 1 is slower)."
python3 - "$log" <<'PY'
import statistics, sys
rows = [dict(kv.split("=", 1) for kv in line.split()) for line in open(sys.argv[1]) if "=" in line]
measures = [("warm: 3 calls per timer, ns (lower is better)", "warm", "warm_ns_median"),
            ("contention: 8 threads, M pairs/s (higher is better)", "contention", "mops"),
            ("cold: 100k timers, create+arm ns (lower is better)", "cold", "schedule_ns"),
            ("cold: cancel ns (lower is better)", "cold", "cancel_ns"),
            ("cold, one call: 1M timers, tocsin_countdown_start ns (lower is better)", "cold1", "schedule_ns"),
            ("stress: 8 threads, k operations/s (higher is better)", "stress", "kops")]
variants = ["shipped", "no-prefault"]
print("\n| measure | " + " | ".join(variants) + " |")
print("|---" * (len(variants) + 1) + "|")
for title, workload, key in measures:
    cells, base = [], None
    for variant in variants:
        values = sorted(float(r[key]) for r in rows if r.get("variant") == variant and r.get("workload") == workload and key in r)
        if not values:
            cells.append("n/a")
            continue
        median = statistics.median(values)
        base = median if variant == "shipped" else base
        text = f"{median:,.2f}" if median < 10 else f"{median:,.0f}"
        text += f" ({values[0]:,.4g}–{values[-1]:,.4g})"
        if variant != "shipped" and base:
            text += f", ×{median / base:.2f}"
        cells.append(text)
    print(f"| {title} | " + " | ".join(cells) + " |")
PY
