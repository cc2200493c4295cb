#!/usr/bin/env bash
# Live notifications at any count: the release service in a headless session
# (Xvfb, dunst, a private bus; scripts/desktop-session.sh) with 1, 3, 10 and
# 50 live timers; for each, the context switches per second of all the
# service's threads, the Notify calls per second dunst gets, and how often
# its main loops wake for a timeout (strace). Medians of REPS runs. Not a test.
#   bench/live.sh [REPS] [SECONDS]     (default 3 runs of 10 s each)
set -euo pipefail
cd "$(dirname "$0")/.."
reps=${1:-3}
export SECONDS_MEASURED=${2:-10}
scripts/install-deps.sh
make --no-print-directory stage-service CONFIG=release > /dev/null
mkdir -p out/bench
log=out/bench/live.txt
: > "$log"
for _ in $(seq "$reps"); do
  TOCSIN_SERVICE_DIR=$PWD/out/release/service-prefix/share/dbus-1/services \
    scripts/desktop-session.sh out/venv/bin/python bench/live_bench.py 1 3 10 50 >> "$log"
done
echo "Machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(uname -r)"
echo "Runs: $reps of ${SECONDS_MEASURED} s per count, medians."
python3 - "$log" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    fields = dict(part.split("=", 1) for part in line.split())
    rows.setdefault(int(fields["live"]), []).append(fields)
print()
print("| live timers | service: context switches/s (all threads) | its notifier thread | Notify calls/s | "
      "CloseNotification/s | timeout wake-ups/s: main loop | notifier's loop |")
print("|---:|---:|---:|---:|---:|---:|---:|")
for count in sorted(rows):
    med = lambda key: statistics.median(float(r[key]) for r in rows[count])
    print(f"| {count} | {med('switches_per_s'):.1f} | {med('notifier_switches_per_s'):.1f} | {med('notify_per_s'):.1f} | "
          f"{med('close_per_s'):.1f} | {med('main_timeouts_per_s'):.2f} | {med('notifier_timeouts_per_s'):.2f} |")
PY
