#!/usr/bin/env bash
# Builds tensorgen and runs the main example. Arguments are passed to the example.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/configure.sh
ninja -C build examples/hello
exec build/examples/hello "$@"
