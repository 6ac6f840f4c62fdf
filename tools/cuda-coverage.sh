#!/usr/bin/env bash
# Line coverage of kernels/cuda in the emulated build, after tools/run-emulated-tests.sh has run
# its tests (docs/cuda.md, "Coverage"): gcovr over the gcov data of build-emu (BUILD_DIR),
# restricted to kernels/cuda. Prints a line per file and the total; writes the same table to
# $BUILD_DIR/cuda-coverage.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
build="${BUILD_DIR:-build-emu}"
command -v gcovr > /dev/null || { echo "cuda-coverage: gcovr is missing: run tools/setup.sh" >&2; exit 1; }
gcovr --root . --filter 'kernels/cuda/' --exclude-unreachable-branches --print-summary \
  --output "$build/cuda-coverage.txt" "$build"
cat "$build/cuda-coverage.txt"
