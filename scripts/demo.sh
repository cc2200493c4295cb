#!/usr/bin/env bash
# The main job for now: builds libtocsin.so and runs the C countdown demo
# (3 s with ticks, then FINISH). Installs what it needs first.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
exec make --no-print-directory demo
