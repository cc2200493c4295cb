#!/bin/bash
# The checks of scripts/test-debian.sh, run as root inside a fresh Debian
# root (debootstrap --variant=minbase) that has no Swift: /work holds the
# .deb files, the wheel, tea.c (the README's C example) and the binding's
# examples. One "ok"/"FAIL" line per check, then "N passed, N failed".
#   inside.sh            Debian 12: the packages, then the wheel
#   inside.sh wheel      an older Debian (11: glibc 2.31, before the threads
#                        moved into libc): the wheel alone, proving its tag
#   inside.sh --tools [wheel]   prints the packages the checks use (not the
#                        packages under test), for test-debian.sh to put in
#                        its cached root ahead of time
set -uo pipefail
# What the checks use (not what the packages need): a C compiler, pkg-config,
# a session bus, venv; for the wheel alone, venv.
tools() { if [ "${1:-}" = wheel ]; then echo python3-venv; else echo gcc libc6-dev pkg-config dbus python3-venv; fi; }
if [ "${1:-}" = --tools ]; then tools "${2:-}"; exit; fi
only_wheel=$([ "${1:-}" = wheel ] && echo true || echo false)
system="debian$(cut -d. -f1 /etc/debian_version)"
export DEBIAN_FRONTEND=noninteractive
cd /work
passed=0 failed=0
check() {  # check NAME COMMAND...: runs it, output to /work/NAME.log
  local name=$1; shift
  if "$@" > "/work/$name.log" 2>&1; then
    passed=$((passed + 1)); echo "ok   $system.$name"
  else
    failed=$((failed + 1)); echo "FAIL $system.$name"; tail -20 "/work/$name.log" | sed 's/^/  /'
  fi
}
ours=(libtocsin0 libtocsin-notify0 libtocsin-dev tocsin python3-tocsin)
debs=(/work/*.deb)

no_swift() { ! command -v swift && ! command -v swiftc && [ ! -e /opt/swift ]; }
check no_swift_here no_swift
apt-get update -qq > /dev/null

wheel() {
  rm -rf /tmp/venv && python3 -m venv /tmp/venv && /tmp/venv/bin/pip install -q --no-index /work/tocsin-*.whl || return 1
  /tmp/venv/bin/python -c 'import tocsin, tocsin._library as l; tocsin.Engine(manual_clock=True).close(); p = next(iter(l._loaded)); print(p); assert "/site-packages/tocsin/_lib/" in p'
  for example in "progress.py 0.5" "kitchen.py 0.1" "async_timers.py 0.5"; do
    echo "== $example"
    (cd /tmp && timeout 60 /tmp/venv/bin/python /work/examples/$example) > /tmp/example.log || return 1
    tr '\r' '\n' < /tmp/example.log | tail -2
    grep -qE 'is ready|all done' /tmp/example.log || return 1
  done
}
if $only_wheel; then
  # shellcheck disable=SC2046
  check tools apt-get install -y -qq --no-install-recommends $(tools wheel)
  check wheel_in_a_fresh_venv wheel
  echo "$passed passed, $failed failed"
  [ "$failed" -eq 0 ]
  exit
fi
# shellcheck disable=SC2046
check tools apt-get install -y -qq --no-install-recommends $(tools)

# Every file outside dpkg's and apt's own books, before the packages.
snapshot() { find / -xdev \( -path /proc -o -path /dev -o -path /tmp -o -path /work -o -path /root -o -path /var/lib/dpkg \
  -o -path /var/lib/apt -o -path /var/cache -o -path /var/log \) -prune -o -print | sort; }
snapshot > /work/before.txt

check apt_resolves_every_dependency apt-get install -y --no-install-recommends "${debs[@]}"

c_countdown() {
  cc tea.c $(pkg-config --cflags --libs tocsin) -o tea && ./tea | tee /dev/stderr | tail -1 | grep -qx FINISH
}
check c_program_through_pkg_config c_countdown
# Every file the installed header names as its reference is where it says.
headers_references() {
  grep -q '/usr/share/doc/libtocsin-dev/' /usr/include/tocsin.h && test -s /usr/share/doc/libtocsin-dev/timer-file.md
}
check the_headers_references_are_installed headers_references
# And every document the command's help names (issue 58: only two were installed).
commands_references() {
  help=$(tocsin export --help) && grep -q share/doc/tocsin/alarms-file.md <<< "$help" && test -s /usr/share/doc/tocsin/alarms-file.md &&
    test -s /usr/share/doc/tocsin/status-bars.md && test -s /usr/share/doc/tocsin/dbus.md
}
check the_commands_references_are_installed commands_references

python_countdown() {
  python3 - <<'PY'
import threading, tocsin, tocsin._library as library
done = threading.Event()
with tocsin.Engine() as engine:
    tea = engine.countdown(1, label="Tea")
    tea.on_finish(lambda event: done.set())
    tea.start()
    assert done.wait(10), "no finish"
path = next(iter(library._loaded))
print("finished; loaded", path)
assert path == "libtocsin.so.0" or path.startswith("/usr/lib/"), path  # the system's, by soname
PY
}
check python3_tocsin_countdown python_countdown

command_countdown() {  # exit 0, a finish event, then the state it leaves
  tocsin 2s Tea --json --quiet > /tmp/tea.json && cat /tmp/tea.json && grep -q '"event":"finish","label":"Tea"' /tmp/tea.json \
    && tail -1 /tmp/tea.json | grep -q '"event":"state","label":"Tea","index":0,"state":"finished"'
}
check tocsin_json_finish command_countdown

# The translations, installed with libtocsin-notify0 (C.UTF-8 is the one
# locale a minimal Debian has; gettext's LANGUAGE picks the language).
command_in_german() {
  LANG=C.UTF-8 LANGUAGE=de tocsin 1s Tee --quiet | tee /dev/stderr | grep -qx 'Tee: abgelaufen nach 00:01' \
    && for lang in de fr es; do test -s /usr/share/locale/$lang/LC_MESSAGES/tocsin.mo || return 1; done
}
check tocsin_speaks_german command_in_german

service() {  # on a private session bus, activated from the installed files
  dbus-run-session -- sh -c '
    set -e
    tocsin 60s Tea -b --quiet
    tocsin ls --json | tee /dev/stderr | grep -q "\"label\":\"Tea\",\"kind\":\"countdown\",\"state\":\"running\""
    tocsin pause Tea
    tocsin ls | grep -q "Tea  *paused"
    tocsin rm Tea
    tocsin ls | grep -qx "No timers"
    tocsin doctor | grep "timer service: running"'
}
check service_activated_on_a_private_bus service
check wheel_in_a_fresh_venv wheel


check reinstall apt-get install -y --reinstall "${debs[@]}"
leaves_nothing() {
  apt-get purge -y "${ours[@]}" && apt-get autoremove -y --purge > /dev/null || return 1
  snapshot > /work/after.txt
  diff /work/before.txt /work/after.txt
}
check purge_leaves_nothing_behind leaves_nothing

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
