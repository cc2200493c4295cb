#!/usr/bin/env bash
# The main job: builds the tocsin command and counts down 5 s with it ("Tea
# is ready"): live display on a terminal, desktop alert and alarm sound at
# zero where there is a desktop. Installs what it needs first.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
exec make --no-print-directory demo
