#!/usr/bin/env bash
# The Rust crate (bindings/rust/tocsin) measured (bench/README.md, "Rust"):
#   1. instructions per engine.countdown(s)?.start()? against the bare C
#      calls (tocsin_countdown_new + tocsin_timer_start), counted by
#      callgrind as bench/instructions.sh counts Python's: the instructions
#      of a process starting 3000 timers less those of one starting 1000,
#      over 2000 (the library stripped, as there);
#   2. 10,000 one-shot timers (examples/timers.rs): the crate's engine
#      against tokio::time::sleep (Debian's tokio 1.24), REPS runs, medians.
#   bench/rust.sh [REPS] [LIB]     (REPS: 7; LIB: out/debug/lib/libtocsin.so.0)
# Cargo gets tokio from Debian's librust-tokio-dev through a throw-away
# CARGO_HOME, as scripts/test-rust.sh does. Not a test: nothing fails on speed.
set -euo pipefail
cd "$(dirname "$0")/.."
reps=${1:-7}
lib=$(readlink -f "${2:-out/debug/lib/libtocsin.so.0}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat > "$work/config.toml" <<TOML
[source.crates-io]
replace-with = "debian"
[source.debian]
directory = "/usr/share/cargo/registry"
[net]
offline = true
TOML
export RUSTUP_HOME=${RUSTUP_HOME:-$HOME/.rustup} CARGO_HOME=$work
mkdir -p "$work/lib"
cp -L "$lib" "$work/lib/libtocsin.so.0"
strip "$work/lib/libtocsin.so.0"
ln -s libtocsin.so.0 "$work/lib/libtocsin.so"
export TOCSIN_LIB_DIR=$work/lib LD_LIBRARY_PATH=$work/lib
(cd bindings/rust && cargo build -q --offline --release -p tocsin --example start_many --example timers)
examples=bindings/rust/target/release/examples
cc -O2 -Wall -Wextra -Werror -Iinclude bench/rust_start.c -L"$work/lib" -ltocsin -o "$work/rust_start"

per_start() {  # per_start PROGRAM: instructions per timer, by difference
  local totals=()
  for n in 1000 3000; do
    valgrind --tool=callgrind --callgrind-out-file="$work/cg.out" "$1" "$n" 2> "$work/cg.log" || { cat "$work/cg.log"; exit 1; }
    totals+=("$(sed -n 's/^summary: //p' "$work/cg.out")")
  done
  echo $(( (totals[1] - totals[0] + 1000) / 2000 ))
}
c=$(per_start "$work/rust_start")
rust=$(per_start "$examples/start_many")
echo "## instructions per countdown + start (callgrind, $(basename "$lib"))"
echo
echo "| | instructions | ratio |"
echo "|---|---:|---:|"
echo "| C: tocsin_countdown_new + tocsin_timer_start | $c | 1.00 |"
awk -v c="$c" -v r="$rust" 'BEGIN { printf "| Rust: engine.countdown(s)?.start()? | %d | %.2f |\n", r, r / c }'
echo

# 10,000 timers: each run prints one line per engine:
# "NAME arm_ns_per_timer late_p50_us late_p99_us late_max_us early cpu_ms"
for rep in $(seq "$reps"); do "$examples/timers" 10000; done > "$work/timers"
echo "## 10,000 one-shot timers over 0.5 to 2.5 s: medians of $reps runs"
echo
awk '
  { name[$1] = 1; for (i = 2; i <= 7; i++) v[$1, i, ++n[$1, i]] = $i }
  function median(key, i,    k, m, a, j, t) {
    m = n[key, i]; for (k = 1; k <= m; k++) a[k] = v[key, i, k]
    for (k = 1; k <= m; k++) for (j = k + 1; j <= m; j++) if (a[j] < a[k]) { t = a[k]; a[k] = a[j]; a[j] = t }
    return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
  }
  END {
    split("arm (ns per timer)|lateness p50 (µs)|lateness p99 (µs)|lateness max (µs)|fired early|CPU (ms, whole run)", label, "|")
    print "| measure | tocsin | tokio::time::sleep | tocsin / tokio |"
    print "|---|---:|---:|---:|"
    for (i = 2; i <= 7; i++) {
      t = median("tocsin", i); k = median("tokio", i)
      printf "| %s | %.1f | %.1f | %s |\n", label[i - 1], t, k, (k > 0 ? sprintf("%.2f", t / k) : "-")
    }
  }' "$work/timers"
