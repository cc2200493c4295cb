#!/usr/bin/env bash
# The long D-Bus fuzz run (the nightly kind): Tests/support/dbusfuzz.py, in
# dfuzzer's manner, against `tocsin service` on a private session bus for
# HOURS (default 1; fractions allowed), round after round of 300 calls of
# every method and property, with SEED (default: the time) printed so that
# a failure can be run again. Three timers made before it (a countdown, a
# paused one, a calendar alarm, the countdowns longer than the run) must
# come through as they were, and the service must be the same process at
# the end. After a failure it prints the seed and the calls reduced to the
# fewest that still break a fresh service (dbusfuzz.py reduce): add that
# seed to SEEDS in Tests/service/test_fuzz_dbus.py once it is fixed.
# `make test` runs fixed seeds (Tests/service/test_fuzz_dbus.py).
# TOCSIN_BIN=PATH fuzzes that build of the command instead of this tree's.
#   scripts/fuzz-dbus.sh [HOURS] [SEED]
set -euo pipefail
cd "$(dirname "$0")/.."
hours=${1:-1}
seed=${2:-$(date +%s)}
scripts/install-deps.sh
make -s out/venv/.installed
if [ -n "${TOCSIN_BIN:-}" ]; then
  tocsin=$TOCSIN_BIN
else
  swift build --product tocsin > /dev/null
  tocsin=$(swift build --show-bin-path)/tocsin
fi
work=$(mktemp -d)
{ read -r address; read -r bus_pid; } < <(dbus-daemon --session --fork --print-address=1 --print-pid=1)
trap 'kill $(jobs -p) 2> /dev/null || true; wait; kill "$bus_pid" 2> /dev/null || true; rm -rf "$work"' EXIT
export DBUS_SESSION_BUS_ADDRESS=$address
"$tocsin" service --quiet --idle-exit 0 --state "$work/timers.json" 2> "$work/service.log" &
gdbus wait --session --timeout 10 dev.tocsin.Timers
call() { gdbus call --session -d dev.tocsin.Timers -o /dev/tocsin/Timers -m "dev.tocsin.Timers1.$1" -- "${@:2}" > /dev/null; }
# (the countdowns outlast the run by an hour: a finish would change them)
last=$(python3 -c "print(float('$hours') * 3600 + 3600)")
call Add "'Tea'" "$last" "{'alert': <false>}"
call Add "'Wake'" 0.0 "{'calendar': <'Mon..Fri 07:00'>, 'alert': <false>}"
call Add "'Bread'" "$last" "{'alert': <false>}"
call Pause 3
# The three timers as JSON: a calendar alarm's `duration` (its start to
# its ring) is worked out again whenever the engine re-aims its alarms, from
# the wall and boot clocks, which slew apart by microseconds in an hour: it
# is compared by its ring (`next`), exact, and to the millisecond.
listing() {
  busctl --user --json=short call dev.tocsin.Timers /dev/tocsin/Timers dev.tocsin.Timers1 ListColumns as 7 \
    id label kind state duration calendar next | python3 -c '
import json, sys
columns = json.load(sys.stdin)["data"][0]
rows = list(zip(*(columns[name]["data"] for name in ("id", "label", "kind", "state", "duration", "next"))))
print(json.dumps([row[:4] + (round(row[4], 3), row[5]) for row in rows] + [columns["calendar"]["data"]]))'
}
before=$(listing)
seconds=$(python3 -c "print(float('$hours') * 3600)")
if ! out/venv/bin/python Tests/support/dbusfuzz.py 300 "$seconds" "$seed" "$work/calls.log"; then
  echo "fuzz-dbus: failed (seed $seed); the service's log:"; cat "$work/service.log"
  # Each try: the stuck service killed, a fresh one on a fresh state.
  cat > "$work/restart.sh" <<RESTART
pkill -KILL -f -- "--state $work/" || true
while gdbus call --session -d org.freedesktop.DBus -o /org/freedesktop/DBus -m org.freedesktop.DBus.NameHasOwner \
    dev.tocsin.Timers | grep -q true; do sleep 0.05; done
state=\$(mktemp -d "$work/try.XXXXXX")
"$tocsin" service --quiet --idle-exit 0 --state "\$state/timers.json" 2> /dev/null &
gdbus wait --session --timeout 10 dev.tocsin.Timers
RESTART
  [ -s "$work/calls.log" ] && out/venv/bin/python Tests/support/dbusfuzz.py reduce "$work/calls.log" "bash $work/restart.sh"
  pkill -KILL -f -- "--state $work/" || true
  exit 1
fi
after=$(listing)
# The fuzzer removed its own timers: what is left is the three made before it.
if [ "$before" != "$after" ]; then
  echo "fuzz-dbus: the timers made before changed (seed $seed):"; echo "before: $before"; echo "after:  $after"; exit 1
fi
echo "fuzz-dbus: passed, $hours h, seed $seed"
