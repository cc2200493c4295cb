#!/usr/bin/env bash
# The timer service under load (bench/service.c) on a private session bus,
# against N `sleep` processes in the same run, then its restart after a
# SIGKILL. Not a test.
#   bench/service.sh [N...]     (default: 1000 10000)
set -euo pipefail
cd "$(dirname "$0")/.."
sizes=("${@:-1000 10000}")
sizes=(${sizes[@]})
scripts/install-deps.sh
swift build -c release --product tocsin > /dev/null
mkdir -p out/bench
cc -O2 -Wall bench/service.c $(pkg-config --cflags --libs gio-2.0) -o out/bench/service
# A private session bus and a service on it, with a fresh state folder:
# sets scratch, address, bus_pid, command and service.
start_service() {
  scratch=$(mktemp -d)
  { read -r address; read -r bus_pid; } < <(dbus-daemon --session --fork --print-address=1 --print-pid=1)
  command=("$(swift build -c release --show-bin-path)/tocsin" service --quiet --idle-exit 0 --state "$scratch/timers.json")
  DBUS_SESSION_BUS_ADDRESS=$address "${command[@]}" &
  service=$!
  sleep 0.5
}
for n in "${sizes[@]}"; do
  start_service
  DBUS_SESSION_BUS_ADDRESS=$address out/bench/service "$n"
  # Killed with its journal unfolded; the restart reads it all back.
  kill -KILL "$service"
  wait "$service" 2> /dev/null || true
  DBUS_SESSION_BUS_ADDRESS=$address out/bench/service restart "$n" "${command[@]}"
  kill "$bus_pid"
  rm -rf "$scratch"
done
# 10,000 calendar alarms with wake on, added one by one: early Adds against the last.
start_service
DBUS_SESSION_BUS_ADDRESS=$address out/bench/service alarms 10000
kill "$service"
wait "$service" 2> /dev/null || true
kill "$bus_pid"
rm -rf "$scratch"
