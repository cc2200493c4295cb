#!/usr/bin/env bash
# Tocsin's BootClock against Swift's ContinuousClock, in one run, runs of
# the two alternated; prints a markdown table of medians of REPS runs.
#   bench/clocks.sh [REPS] [SECONDS]     (default: 5 runs; timers for 10 s)
# Rows: 10,000 concurrent Task.sleeps with deadlines spread over 2 s
# (lateness p50/p99/max, context switches of the whole process), and 100
# AsyncTimerSequences ticking every second with a tolerance of 1 s (context
# switches per second). Not a test: nothing passes or fails on speed.
set -euo pipefail
cd "$(dirname "$0")/clocks"
reps=${1:-5}
seconds=${2:-10}
swift build -c release > /dev/null
bench="$(swift build -c release --show-bin-path)/clocks-bench"
results=$(mktemp)
trap 'rm -f "$results"' EXIT
for ((run = 0; run < reps; run++)); do
  clocks=(boot continuous)
  ((run % 2)) && clocks=(continuous boot)
  for clock in "${clocks[@]}"; do
    echo "sleeps $clock $("$bench" sleeps "$clock" 10000 2000)" >> "$results"
    echo "timers $clock $("$bench" timers "$clock" 100 "$seconds")" >> "$results"
  done
done
awk -v reps="$reps" '
  function median(key,    n, i, j, t, v) {
    n = split(values[key], v, " ")
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (v[j] + 0 < v[i] + 0) { t = v[i]; v[i] = v[j]; v[j] = t }
    return v[int((n + 1) / 2)]
  }
  { for (i = 3; i <= NF; i++) { split($i, kv, "="); values[$1 " " $2 " " kv[1]] = values[$1 " " $2 " " kv[1]] " " kv[2] } }
  END {
    printf "| workload (median of %d runs) | BootClock (Tocsin) | ContinuousClock (Swift) | ratio |\n|---|---:|---:|---:|\n", reps
    split("p50_us p99_us max_us switches", names, " ")
    split("10,000 Task.sleeps over 2 s: lateness p50 (µs)|lateness p99 (µs)|lateness max (µs)|context switches, whole run", labels, "|")
    for (i = 1; i <= 4; i++) {
      b = median("sleeps boot " names[i]); c = median("sleeps continuous " names[i])
      printf "| %s | %s | %s | %.2f |\n", labels[i], b, c, (c > 0 ? b / c : 0)
    }
    b = median("timers boot switches_per_s"); c = median("timers continuous switches_per_s")
    printf "| 100 AsyncTimerSequences, every 1 s, tolerance 1 s: context switches per second | %s | %s | %.2f |\n", b, c, (c > 0 ? b / c : 0)
  }' "$results"
