# Sourced by the timer service's benchmarks (bench/flood.sh, bench/rings.sh):
# this tree and REF (a worktree) built in release, and one run at a time of
# either's service on a private session bus (dbus-daemon --session: the
# session bus's limits), its state on this disk (real fdatasync).
#   service_builds NAME REF   $work (out/bench/NAME.XXXXXX, removed at exit) and both builds
#   service_up ROOT           $address, $bus_pid, $service, $state; with MANAGER=MS in the
#                             environment, a stand-in user manager (bench/user_manager.py)
#                             answering the service's locale reads after MS ms
#   service_down
#   medians COLUMN...         the medians of $work/lines ("BUILD name=value ...") per build

service_builds() {
  scripts/install-deps.sh
  make -s out/venv/.installed
  mkdir -p out/bench
  work=$(mktemp -d "$PWD/out/bench/$1.XXXXXX")
  trap 'kill $(jobs -p) 2> /dev/null || true; git worktree remove --force "$work/ref" 2> /dev/null || true; rm -rf "$work"' EXIT
  git worktree add -q --detach "$work/ref" "$2"
  swift build -c release --product tocsin > /dev/null
  (cd "$work/ref" && swift build -c release --product tocsin > /dev/null)
}

service_up() {
  state=$(mktemp -d "$work/state.XXXXXX")
  { read -r address; read -r bus_pid; } < <(dbus-daemon --session --fork --print-address=1 --print-pid=1)
  manager=
  if [ -n "${MANAGER:-}" ]; then
    DBUS_SESSION_BUS_ADDRESS=$address out/venv/bin/python bench/user_manager.py "$MANAGER" > "$state/manager" &
    manager=$!
    until grep -q ready "$state/manager"; do sleep 0.1; done
  fi
  DBUS_SESSION_BUS_ADDRESS=$address "$1/.build/release/tocsin" service --quiet --idle-exit 0 \
    --state "$state/timers.json" &
  service=$!
  DBUS_SESSION_BUS_ADDRESS=$address gdbus wait --session --timeout 10 dev.tocsin.Timers
}

service_down() {
  kill "$service"; wait "$service" 2> /dev/null || true
  [ -z "$manager" ] || kill "$manager"
  kill "$bus_pid"
  rm -rf "$state"
}

medians() {
  python3 - "$work/lines" "$@" <<'TABLE'
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    which, *fields = line.split()
    runs.setdefault(which, []).append({k: float(v) for k, v in (f.split("=") for f in fields)})
columns = sys.argv[2:]
print("| build | " + " | ".join(columns) + " |")
print("|---|" + "---:|" * len(columns))
for which, rows in runs.items():
    print(f"| {which} (median of {len(rows)}) | "
          + " | ".join(f"{statistics.median(r[c] for r in rows):.4g}" for c in columns) + " |")
TABLE
}
