#!/usr/bin/env bash
# What each timer library costs a process that loads it: the file (stripped),
# what it needs, dlopen + first engine + one armed timer, and the resident
# memory after, for libtocsin.so built in Embedded Swift (what make lib
# ships), the same C ABI built by SwiftPM with the Swift runtime linked in,
# libuv and GLib. Each figure is the median of REPS fresh processes (default
# 11), the libraries taken in turn. Not a test: nothing passes or fails.
#   bench/footprint.sh [REPS]
set -euo pipefail
cd "$(dirname "$0")/.."
reps=${1:-11}
mkdir -p out/bench/footprint
scripts/build-embedded.sh out/bench/footprint/embedded.so > /dev/null
strip -o out/bench/footprint/libtocsin-embedded.so out/bench/footprint/embedded.so
swift build -c release --product tocsin-core > /dev/null 2>&1
strip -o out/bench/footprint/libtocsin-swift-runtime.so "$(swift build -c release --show-bin-path)/libtocsin-core.so"
cc -O2 -Wall -Iinclude $(pkg-config --cflags libuv) bench/footprint.c -ldl -o out/bench/footprint/footprint
libs=(
  "tocsin-embedded tocsin out/bench/footprint/libtocsin-embedded.so"
  "tocsin-swift-runtime tocsin out/bench/footprint/libtocsin-swift-runtime.so"
  "libuv uv $(readlink -f "$(pkg-config --variable=libdir libuv)/libuv.so.1")"
  "glib glib $(readlink -f "$(pkg-config --variable=libdir glib-2.0)/libglib-2.0.so.0")"
)
results=out/bench/footprint/results.txt
: > "$results"
for rep in $(seq "$reps"); do
  for k in $(seq 0 $((${#libs[@]} - 1))); do
    read -r name engine path <<< "${libs[$(( (k + rep) % ${#libs[@]} ))]}"
    echo "$name $(out/bench/footprint/footprint "$engine" "$path")" >> "$results"
  done
done
echo "| library | file (stripped) | needs | dlopen + first engine, µs | RSS of the process, KB | of which the library, KB |"
echo "|---|---:|---|---:|---:|---:|"
for entry in "${libs[@]}"; do
  read -r name engine path <<< "$entry"
  needs=$(ldd "$path" | awk '$1 !~ /vdso|ld-linux/ { sub(/\.so.*/, "", $1); printf "%s%s", sep, $1; sep=", " }')
  python3 - "$name" "$(stat -c %s "$path")" "$needs" "$results" <<'PY'
import statistics, sys
name, size, needs, path = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
rows = [dict(kv.split("=") for kv in line.split()[1:]) for line in open(path) if line.split()[0] == name]
median = lambda key: statistics.median(float(row[key]) for row in rows)
added = statistics.median(float(row["rss_kb"]) - float(row["base_rss_kb"]) for row in rows)
print(f"| {name} | {size:,} | {needs} | {median('load_us'):,.0f} | {median('rss_kb'):,.0f} | {added:,.0f} |")
PY
done
