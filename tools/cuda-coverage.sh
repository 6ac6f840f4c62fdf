#!/usr/bin/env bash
# Line coverage of kernels/cuda from the emulated CUDA build, in one command (docs/cuda.md,
# "Coverage of kernels/cuda"):
#   tools/cuda-coverage.sh           configures build-emu if it is missing (the emulated leg's
#                                    options), builds the executables that launch CUDA kernels,
#                                    clears the counters, runs them and reports;
#   tools/cuda-coverage.sh --report  only reports, over the counters earlier runs left (after
#                                    tools/run-emulated-tests.sh, say).
# No separate coverage build is needed: the emulated build compiles the CUDA backend, and only
# it, with gcov instrumentation (Meson option emulated_cuda_coverage, on by default), so the CPU
# objects stay the normal build's ccache entries. gcovr (Debian's package, installed by
# tools/setup.sh) reads that build's gcov data, restricted to kernels/cuda. Prints a line per
# file and the total; writes the same table to $BUILD_DIR/cuda-coverage.txt. BUILD_DIR
# overrides build-emu. Exits non-zero when a test failed (the report is still written).
set -euo pipefail
cd "$(dirname "$0")/.."
build="${BUILD_DIR:-build-emu}"
report_only=0
if [ "${1:-}" = --report ]; then report_only=1; elif [ $# -gt 0 ]; then
  echo "usage: $0 [--report]" >&2
  exit 2
fi
tools/setup.sh > /dev/null
command -v gcovr > /dev/null || { echo "cuda-coverage: gcovr is missing: run tools/setup.sh" >&2; exit 1; }

status=0
if [ $report_only = 0 ]; then
  if [ ! -f "$build/build.ninja" ]; then
    meson setup "$build" -Dcuda=disabled -Demulated_cuda=enabled -Dbenchmarks=false
  fi
  ninja -C "$build" tests/cuda/cuda_tests tests/cuda/emulation/cuda_emulation_tests tests/unit/unit_autograd \
    tests/conformance/conformance
  find "$build" -name '*.gcda' -delete
  # The executables that launch CUDA kernels. The race detector is off for cuda_tests (it finds
  # races, it does not change which lines run, and it makes the suite several times slower);
  # cuda_emulation_tests keeps it, as its race tests need it.
  (cd "$build" && ./tests/cuda/emulation/cuda_emulation_tests) || status=1
  (cd "$build" && ./tests/unit/unit_autograd) || status=1
  (cd "$build/tests/conformance" && ./conformance --test-case='*cpu_cuda') || status=1
  (cd "$build" && TG_EMU_RACECHECK=0 ./tests/cuda/cuda_tests) || status=1
fi

gcovr --root . --filter 'kernels/cuda/' --exclude-unreachable-branches --print-summary \
  --output "$build/cuda-coverage.txt" "$build"
cat "$build/cuda-coverage.txt"
exit $status
