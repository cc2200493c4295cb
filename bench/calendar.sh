#!/usr/bin/env bash
# Calendar alarms' costs (bench/calendar.c), as a markdown table of medians
# of REPS runs: tocsin_calendar_next per call, and arming a calendar alarm
# (create + start + free) against a one-shot wall-clock alarm, alone and
# with one tocsin_calendar_next call. Not a test: nothing passes or fails.
#   bench/calendar.sh [REPS]            (default 5; about 40 seconds)
# and, for scale, 10,000 calendar alarms with wake on (it needs
# CAP_WAKE_ALARM) and off: the first and the last thousand, µs each.
set -euo pipefail
cd "$(dirname "$0")/.."
reps=${1:-5}
make --no-print-directory lib CONFIG=release > /dev/null
mkdir -p out/bench
cc -O2 -Wall -Iinclude bench/calendar.c -Lout/release/lib -ltocsin -o out/bench/calendar
export LD_LIBRARY_PATH=$PWD/out/release/lib
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : int((v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
echo "Machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'). Medians of $reps runs."
echo
echo "| tocsin_calendar_next | ns per call |"
echo "| --- | ---: |"
for spec in 'Mon..Fri 07:00 Europe/Berlin' '*:0/15' '*:0/15 UTC' '*-*-* 02:30 Europe/Berlin' '*-*~01 18:00 America/New_York'; do
  value=$(for _ in $(seq "$reps"); do out/bench/calendar next "$spec" 200000 | cut -f3; done | median)
  echo "| \`$spec\` | $value |"
done
echo
echo "| arming 1,000 timers (create + start + free) | ns per timer |"
echo "| --- | ---: |"
for kind in alarm alarm+next calendar; do
  value=$(for _ in $(seq "$reps"); do out/bench/calendar arm "$kind" 1000 | cut -f3; done | median)
  case $kind in
    alarm) name="tocsin_alarm_new (one-shot, wall clock)" ;;
    alarm+next) name="tocsin_calendar_next + tocsin_alarm_new" ;;
    calendar) name="tocsin_calendar_new (\`Mon..Fri 07:00 Europe/Berlin\`)" ;;
  esac
  echo "| $name | $value |"
done
echo
echo "| 10,000 calendar alarms created, (wake on,) started one by one on a DEFAULT engine | first 1,000: µs each | last 1,000: µs each | last / first |"
echo "| --- | ---: | ---: | ---: |"
for wake in "" nowake; do
  rows=$(for _ in $(seq "$reps"); do out/bench/calendar scale 10000 $wake; done)
  first=$(cut -f3 <<< "$rows" | median); last=$(cut -f4 <<< "$rows" | median)
  kind=$(cut -f5 <<< "$rows" | sort -u | tr '\n' ' ')
  echo "| ${kind% } | $first | $last | $(awk -v a="$first" -v b="$last" 'BEGIN { printf "%.2f", b / a }') |"
done
