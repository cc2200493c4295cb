#!/usr/bin/env bash
# Saving and loading N timers with tocsin_engine_save/load (bench/persistence.c):
# medians of 5 each, and the file's size. Not a test.
#   bench/persistence.sh [N...]     (default 10000 100000)
set -euo pipefail
cd "$(dirname "$0")/.."
sizes=("${@:-10000 100000}")
sizes=(${sizes[@]})
scripts/install-deps.sh
make --no-print-directory lib CONFIG=release > /dev/null
mkdir -p out/bench
cc -O2 -Wall -Iinclude bench/persistence.c -Lout/release/lib -ltocsin -o out/bench/persistence
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
for n in "${sizes[@]}"; do
  LD_LIBRARY_PATH=$PWD/out/release/lib out/bench/persistence "$n" "$scratch"
done
