#!/usr/bin/env bash
# Does `List` still need its hand-written serializer (PropertyListEncoder)?
# Builds this tree and a worktree of it whose `List` is made by GLib's
# builder (a tree of GVariants: Variant.dictionary per timer) instead, both
# in release, and runs bench/service.c against each on a private session bus
# with N timers (default 10000), ROUNDS times each, alternating. Prints the
# service's line of each run: list_ms (median of 5 List round trips),
# columns_ms (ListColumns, for scale) and bytes_per_timer (the service's
# RSS growth since it started, per timer: the 5 List replies included).
# Not a test.   bench/list-encoder.sh [N] [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-10000}
rounds=${2:-2}
scripts/install-deps.sh
work=$(mktemp -d)
trap 'kill $(jobs -p) 2> /dev/null || true; git worktree remove --force "$work/builder" 2> /dev/null || true; rm -rf "$work"' EXIT
git worktree add -q --detach "$work/builder" HEAD
python3 - "$work/builder/Sources/TocsinService/ServiceBus+Methods.swift" <<'PATCH'
import sys
path = sys.argv[1]
text = open(path).read()
old = """            .values(Variant.serialized(call.bus.service.serializedList(for: call.caller), type: "(aa{sv})"))"""
assert old in text, "ServiceBus+Methods.swift's List entry has changed: update this patch"
open(path, "w").write(text.replace(old, """            .values(Variant.tuple([Variant.array(of: "a{sv}", call.bus.service.list(for: call.caller).map { Variant.dictionary($0) })]))"""))
PATCH
swift build -c release --product tocsin > /dev/null
(cd "$work/builder" && swift build -c release --product tocsin > /dev/null)
mkdir -p out/bench
cc -O2 -Wall bench/service.c $(pkg-config --cflags --libs gio-2.0) -o out/bench/service
for _ in $(seq "$rounds"); do
  for which in encoder builder; do
    root=$PWD
    [ "$which" = builder ] && root=$work/builder
    state=$(mktemp -d "$work/state.XXXXXX")
    { read -r address; read -r bus_pid; } < <(dbus-daemon --session --fork --print-address=1 --print-pid=1)
    DBUS_SESSION_BUS_ADDRESS=$address "$root/.build/release/tocsin" service --quiet --idle-exit 0 --state "$state/timers.json" &
    service=$!
    sleep 0.5
    # (its own process group: its N sleep processes go with it)
    DBUS_SESSION_BUS_ADDRESS=$address setsid stdbuf -oL out/bench/service "$n" > "$state/out" &
    bench=$!
    until grep -q engine=tocsin-service "$state/out"; do sleep 0.2; done
    echo "$which $(grep engine=tocsin-service "$state/out")"
    kill -- -"$bench"; wait "$bench" 2> /dev/null || true
    kill "$service"; wait "$service" 2> /dev/null || true
    kill "$bus_pid"
  done
done
