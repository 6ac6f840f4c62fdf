#!/usr/bin/env bash
# The emulated-CUDA leg (docs/cuda.md, "Host emulation"): configures build-emu with the CUDA
# backend compiled against the host emulation (-Dcuda=disabled -Demulated_cuda=enabled),
# builds it, and runs the suites that exercise the CUDA kernels there: unit, conformance
# (whose cpu_cuda check then runs) and cuda. The last line is "N passed, N failed".
# Arguments are passed to `meson test` (e.g. --suite cuda). BUILD_DIR overrides build-emu;
# JOBS the ninja parallelism (default 2).
set -uo pipefail
cd "$(dirname "$0")/.."
build="${BUILD_DIR:-build-emu}"
tools/setup.sh > /dev/null || exit 1
if [ ! -f "$build/build.ninja" ]; then
  meson setup "$build" -Dcuda=disabled -Demulated_cuda=enabled -Dbenchmarks=false || exit 1
fi
ninja -C "$build" -j "${JOBS:-2}" || exit 1
if [ $# -eq 0 ]; then
  set -- --suite unit --suite conformance --suite cuda
fi
meson test -C "$build" --print-errorlogs "$@"
status=$?
python3 tools/count_tests.py "$build/meson-logs/testlog.json" || status=1
exit $status
