#!/usr/bin/env bash
# Instructions per call of the engine's C calls and of the Python binding's
# countdown().start(), counted by callgrind: the same for the same library
# and input however busy the machine is, so a check, not a timed test.
#   bench/instructions.sh [LIB]            prints the table (LIB: out/debug/lib/libtocsin.so.0)
#   bench/instructions.sh --check [LIB]    also compares it with bench/instructions.baseline
#                                          and fails if a count grew more than 10 %
#   bench/instructions.sh --baseline [LIB] writes bench/instructions.baseline
# The calls: bench/instructions.c (100,000 timers on a POLLED engine; one
# delivered FINISH on a MANUAL_CLOCK engine, 100,000 by one advance;
# tocsin_calendar_next 1,000 times). Python: the instructions of a process
# making 2,000 more `engine.countdown(3600).start()`s than another (each
# timer made, started and, at exit, freed), over 2,000; beside it, as the
# reference a Python user compares with, asyncio's `loop.call_later(3600,
# f)` measured the same way. The library is stripped first (valgrind cannot read the Embedded
# library's debug info).
set -euo pipefail
cd "$(dirname "$0")/.."
mode=table
case "${1:-}" in --check|--baseline) mode=${1#--}; shift ;; esac
lib=${1:-out/debug/lib/libtocsin.so.0}
baseline=bench/instructions.baseline
command -v valgrind > /dev/null || { echo "instructions: valgrind is not installed (scripts/install-deps.sh installs it)"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -L "$lib" "$work/libtocsin.so.0"
strip "$work/libtocsin.so.0"
ln -s libtocsin.so.0 "$work/libtocsin.so"
cc -O2 -Wall -Wextra -Werror -Iinclude bench/instructions.c -L"$work" -ltocsin -ldl -o "$work/instructions"
export LD_LIBRARY_PATH=$work

# "name calls" from the harness, inclusive instructions from callgrind: per call.
count() {  # count calls|delivery N
  valgrind --tool=callgrind --callgrind-out-file="$work/$1.out" "$work/instructions" "$1" "$2" > "$work/$1.calls" 2> "$work/$1.log" ||
    { cat "$work/$1.log"; exit 1; }
  callgrind_annotate --inclusive=yes --threshold=100 "$work/$1.out" 2> /dev/null > "$work/$1.annotated"
  while read -r name calls; do
    total=$(awk -v name="$name" '$0 ~ ":" name " " { gsub(",", "", $1); print $1; exit }' "$work/$1.annotated")
    [ -n "$total" ] || { echo "instructions: callgrind has no count for $name"; exit 1; }
    echo "$name $(( (total + calls / 2) / calls ))"
  done < "$work/$1.calls"
}
python_row() {  # python_row NAME SETUP CALL TEARDOWN: instructions per CALL, in a Python process
  local totals=() n
  local python  # the interpreter itself, not a wrapper script such as pyenv's shim
  python=$(python3 -c 'import sys; print(sys.executable)')
  for n in 1000 3000; do
    PYTHONHASHSEED=0 TOCSIN_LIBRARY="$work/libtocsin.so.0" PYTHONPATH=bindings/python \
      valgrind --tool=callgrind --callgrind-out-file="$work/python.out" "$python" -c "
$2
kept = [$3 for _ in range($n)]
$4" 2> "$work/python.log" || { cat "$work/python.log"; exit 1; }
    totals+=("$(sed -n 's/^summary: //p' "$work/python.out")")
  done
  echo "$1 $(( (totals[1] - totals[0] + 1000) / 2000 ))"
}
python_start() {  # Python's engine.countdown(3600).start(), per call
  python_row python_countdown_start $'import tocsin\nengine = tocsin.Engine(polled=True)' \
    'engine.countdown(3600).start()' 'engine.close()'
}
asyncio_call_later() {  # the reference: asyncio's loop.call_later(3600, f), measured the same way
  python_row python_asyncio_call_later $'import asyncio\nloop = asyncio.new_event_loop()\nf = lambda: None' \
    'loop.call_later(3600, f)' 'loop.close()'
}
{ count calls 100000; count delivery 100000; python_start; asyncio_call_later; } > "$work/table"

case $mode in
  baseline) cp "$work/table" "$baseline"; echo "instructions: wrote $baseline"; cat "$baseline"; exit 0 ;;
esac
awk -v check="$mode" '
  FILENAME == ARGV[1] { base[$1] = $2; next }
  {
    seen[$1] = 1
    if (!($1 in base)) { unknown = unknown " " $1; failed = 1 }
    ratio = ($1 in base) && base[$1] > 0 ? $2 / base[$1] : 0
    printf "%-28s %8d %10s %8s\n", $1, $2, ($1 in base ? base[$1] : "-"), (ratio ? sprintf("%.2f", ratio) : "-")
    if (check == "check" && ratio > 1.10) { grown = grown " " $1; failed = 1 }
  }
  BEGIN { printf "%-28s %8s %10s %8s\n", "instructions per call", "now", "baseline", "ratio" }
  END {
    for (name in base) if (!(name in seen)) { missing = missing " " name; failed = 1 }
    if (check != "check") exit 0
    if (missing) print "instructions: in bench/instructions.baseline but not measured (a call the table lost):" missing
    if (unknown) print "instructions: measured but not in bench/instructions.baseline:" unknown
    if (grown) print "instructions: more than 10 % over bench/instructions.baseline:" grown
    if (failed) {
      print "  if the instructions buy something, run bench/instructions.sh --baseline and commit the"
      print "  new baseline with a message that says what they buy; else find what grew: build the"
      print "  library of an earlier commit (git worktree add DIR REV; make -C DIR lib) and run"
      print "  bench/instructions.sh DIR/out/debug/lib/libtocsin.so.0 beside this one"
      exit 1
    }
    if (check == "check") print "instructions: 1 passed, 0 failed"
  }' "$baseline" "$work/table"
