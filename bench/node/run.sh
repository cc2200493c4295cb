#!/usr/bin/env bash
# The Node.js binding against Node's own timers (bench/README.md, "Node.js"):
# per timer, engine.countdown(3600).start() against setTimeout (time, and
# instructions counted by callgrind), and the lateness of 10,000 timers due
# over 2 s. Builds the release libtocsin.so and the addon against it first.
#   bench/node/run.sh [REPS]     (default 5; about 5 minutes on 2 cores)
set -euo pipefail
cd "$(dirname "$0")/../.."
reps=${1:-5}
make --no-print-directory -s lib CONFIG=release
make --no-print-directory -s out/release/node/tocsin.node CONFIG=release
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# valgrind cannot read the Embedded library's debug info: a stripped copy.
cp -L out/release/lib/libtocsin.so.0 "$work/libtocsin.so.0"
strip "$work/libtocsin.so.0"
export TOCSIN_NODE_ADDON=$PWD/out/release/node/tocsin.node LD_LIBRARY_PATH=$PWD/out/release/lib
echo "node $(node --version), libtocsin $(node -p "require('./bindings/node').version"), $(nproc) cores, $(date -u +%Y-%m-%d)"
echo
if command -v valgrind > /dev/null; then
  node bench/node/report.js "$reps" "$work"
else
  echo "(valgrind is not installed: no instruction counts)"
  node bench/node/report.js "$reps"
fi
