#!/usr/bin/env bash
# Prints the interpreter of Python X.Y: pyenv's newest X.Y.* patch release
# ($PYENV_ROOT/versions, ~/.pyenv by default), else pythonX.Y on the PATH.
# Fails, saying how to install it, when there is neither: the binding claims
# every version it is tested on (scripts/test-python-versions.sh).
#   scripts/find-python.sh X.Y
set -uo pipefail
version=${1:?usage: scripts/find-python.sh X.Y}
root=${PYENV_ROOT:-$HOME/.pyenv}
found=$(ls -d "$root"/versions/"$version".[0-9]*/bin/python"$version" 2>/dev/null | sort -V | tail -1)
[ -n "$found" ] || found=$(command -v "python$version")
if [ -n "$found" ] && "$found" -c 'import sys; assert "%d.%d" % sys.version_info[:2] == sys.argv[1]' "$version" 2>/dev/null; then
  echo "$found"
  exit 0
fi
echo "python $version: not found (neither $root/versions/$version.* nor python$version on the PATH):" \
     "the binding claims it; install it with pyenv install $version" >&2
exit 1
