#!/usr/bin/env bash
# The Python binding on every Python it claims (pyproject.toml's
# requires-python, the wheel's py3 tag): mypy --strict and the binding's
# tests on each version, side by side, against one built library.
#   scripts/test-python-versions.sh LIBTOCSIN LIBNOTIFY VERSION...
# Each version's interpreter is pyenv's ($PYENV_ROOT/versions/X.Y.*, the
# newest patch release), else pythonX.Y on the PATH (scripts/find-python.sh);
# a version not found fails the step (install it: pyenv install X.Y), none
# is skipped. Each has
# its own virtual environment, out/venv-X.Y, made without pip (the test
# venv's pip installs into it: seconds, not ensurepip's tens) and kept
# until Tests/requirements-python.txt changes. Each version's output is
# shown once all are done, ending with pytest's own line ("N passed in
# T s"), after a line "== python X.Y (PATH): mypy --strict, pytest".
set -uo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 3 ] || { echo "usage: $0 LIBTOCSIN LIBNOTIFY VERSION..." >&2; exit 2; }
library=$(realpath "$1") notifier=$(realpath "$2")
shift 2
pip=out/venv/bin/pip
requirements=Tests/requirements-python.txt
[ -x "$pip" ] || { echo "test-python-versions: no $pip (make out/venv/.installed)" >&2; exit 1; }

pythons=()
for version in "$@"; do
  python=$(scripts/find-python.sh "$version") || { echo "python $version: 0 passed, 1 failed"; exit 1; }
  pythons+=("$python")
done

# The virtual environments, made side by side (pip mostly waits on the network).
made=()
for i in "${!pythons[@]}"; do
  version=${@:i+1:1} venv=out/venv-${@:i+1:1}
  if [ -f "$venv/.installed" ] && [ "$venv/.installed" -nt "$requirements" ] && [ -x "$venv/bin/python" ]; then continue; fi
  (
    rm -rf "$venv" && "${pythons[i]}" -m venv --without-pip "$venv" &&
      "$pip" --python "$venv/bin/python" install -q --disable-pip-version-check -r "$requirements" &&
      touch "$venv/.installed"
  ) > "out/venv-$version.log" 2>&1 &
  made+=("$!:$version")
done
for job in "${made[@]}"; do
  wait "${job%%:*}" || { cat "out/venv-${job#*:}.log"; echo "python ${job#*:}: cannot make out/venv-${job#*:}"; exit 1; }
done

# The runs, two at a time (the machine's cores; the tests that wait on real
# time are not starved), each into its own log.
run() {  # run VERSION PYTHON
  local venv=$PWD/out/venv-$1
  {
    echo "== python $1 ($2): mypy --strict, pytest"
    (cd bindings/python && "$venv/bin/mypy" --strict --no-incremental --cache-dir=/dev/null tocsin) &&
      (cd bindings/python && TOCSIN_LIBRARY=$library TOCSIN_NOTIFY_LIBRARY=$notifier \
        "$venv/bin/python" -m pytest -q -p no:cacheprovider)
  } > "out/python-$1.log" 2>&1
}
export -f run
export library notifier
began=$(date +%s)
status=0
for i in "${!pythons[@]}"; do echo "${@:i+1:1} ${pythons[i]}"; done |
  xargs -P 2 -L 1 bash -c 'run "$0" "$1"; echo $? > "out/python-$0.status"'
for version in "$@"; do
  cat "out/python-$version.log"
  if [ "$(cat "out/python-$version.status" 2>/dev/null)" != 0 ]; then
    status=1
    grep -qE '^[0-9]+ (passed|failed)' "out/python-$version.log" || echo "python $version: 0 passed, 1 failed"
  fi
done
echo "test-python-versions: $* in $(( $(date +%s) - began )) s"
exit "$status"
