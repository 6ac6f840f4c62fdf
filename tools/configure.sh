#!/usr/bin/env bash
# Installs what is missing, then configures build/ once (later runs reuse it).
# Extra arguments go to `meson setup` on the first run.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh
if [ ! -f build/build.ninja ]; then
  meson setup build "$@"
fi
