#!/usr/bin/env bash
# Builds tensorgen and runs every CI leg; the last line is "N passed, N failed", counted from
# the test cases every leg's suites report (tools/count_tests.py over all their Meson logs).
# Arguments are passed to the normal leg's `meson test` (e.g. --suite unit).
# TG_CI_LEGS picks legs (default: LEGS below), e.g. TG_CI_LEGS="normal sanitized emulated".
set -uo pipefail
cd "$(dirname "$0")/.."

# The legs, in the order they run. Each is a function leg_<name> that configures, builds and
# runs its tests, and appends each Meson log it writes to `logs`. Adding a leg is one function
# and one word here. CI (.ci/run) runs LEGS. The normal leg runs every suite, the fuzz targets'
# fixed replay sample and the pytest suite; the sanitized leg the unit, graph, graphs and fuzz
# suites and the conformance suite under ASan + UBSan (docs/reliability.md has its times); the
# emulated leg what only the CUDA backend runs, on the host emulation of CUDA (docs/cuda.md).
# A leg in LEGS that fails blocks every merge, so one goes in only after a green run.
LEGS="normal sanitized emulated"

# ccache (tools/setup.sh installs it; Meson uses it when present) gives the emulated build the
# normal build's CPU objects, compiled with the same flags: their build folders differ, so
# the folder must not be part of ccache's key.
export CCACHE_NOHASHDIR=1 CCACHE_BASEDIR=$PWD

logs=()
status=0

leg_normal() {
  tools/configure.sh || return 1
  ninja -C build || return 1
  meson test -C build --print-errorlogs "$@"
  logs+=(build/meson-logs/testlog.json)
  # The Python package's pytest suite (docs/python.md), against the package as built.
  # The package is built whenever .venv has nanobind, which tools/configure.sh installs: a
  # missing package is a failure, never a silent skip.
  if [ -f build/python/tensorgen/__init__.py ]; then
    PYTHONPATH=build/python .venv/bin/python -m pytest -q -p no:cacheprovider tests/python \
      --junitxml=build/meson-logs/pytest.xml
    logs+=(build/meson-logs/pytest.xml)
  else
    echo "run-tests: the Python package was not built (no nanobind in .venv?), so tests/python did not run"
    logs+=(python-package-not-built)
  fi
}

# ASan + UBSan (clang, -O0): the unit, graph, graphs and fuzz suites (the libFuzzer targets
# with their fixed budgets) and the conformance suite without its finite-difference checks
# (gradcheck, gradgradcheck): at -O0 under ASan one of them runs for minutes, and their
# numerics are the normal leg's job (the rest of the suite takes about 15 s). The few unit
# cases of that kind skip themselves in this build (tests/unit/sanitizer_build.h). It builds
# only what those tests run (tools/test_targets.py reads them from Meson), not the examples,
# ports or benchmarks.
leg_sanitized() {
  local build=build-san targets
  tools/configure-sanitized.sh "$build" || return 1
  ninja -C "$build" build.ninja > /dev/null || return 1  # Meson's files may have changed
  targets=$(python3 tools/test_targets.py "$build" --suite unit --suite graph --suite graphs --suite fuzz \
            --suite conformance) || return 1
  # shellcheck disable=SC2086  # one target per word
  ninja -C "$build" $targets || return 1
  local asan=allocator_may_return_null=1:detect_leaks=1
  local ubsan=halt_on_error=1:print_stacktrace=1:suppressions=$PWD/tools/ubsan-suppressions.txt
  ASAN_OPTIONS=$asan UBSAN_OPTIONS=$ubsan meson test -C "$build" --no-rebuild --print-errorlogs \
    --suite unit --suite graph --suite graphs --suite fuzz --logbase testlog-sanitized
  logs+=("$build/meson-logs/testlog-sanitized.json")
  ASAN_OPTIONS=$asan UBSAN_OPTIONS=$ubsan meson test -C "$build" --no-rebuild --print-errorlogs \
    conformance --logbase testlog-conformance-sanitized --test-args="--test-case-exclude=*gradcheck,*gradgradcheck"
  logs+=("$build/meson-logs/testlog-conformance-sanitized.json")
}

# The CUDA backend compiled against the host emulation of CUDA (docs/cuda.md, "The emulated
# leg in CI"). By default it builds and runs only what the normal leg cannot: the cuda suite,
# the CUDA backend of tg::graphs over emulated stream capture (graphs_cuda), the autograd
# stream contract (unit_autograd) and the conformance suite's cpu_cuda checks
# (every other conformance check runs CPU code the normal leg already ran). With
# TG_EMULATED_FULL=1 it builds everything and runs the whole unit, conformance, cuda and graphs
# suites.
# The CPU objects are the normal build's: with ccache (hash_dir = false) they are cache hits.
leg_emulated() {
  local build=${TG_EMULATED_BUILD_DIR:-build-emu}
  tools/setup.sh > /dev/null || return 1
  if [ ! -f "$build/build.ninja" ]; then
    meson setup "$build" -Dcuda=disabled -Demulated_cuda=enabled -Dbenchmarks=false || return 1
  fi
  if [ "${TG_EMULATED_FULL:-0}" = 1 ]; then
    ninja -C "$build" || return 1
    meson test -C "$build" --no-rebuild --print-errorlogs --suite unit --suite conformance --suite cuda \
      --suite graphs --logbase testlog-emulated-full
    logs+=("$build/meson-logs/testlog-emulated-full.json")
    return 0
  fi
  ninja -C "$build" tests/cuda/cuda_tests tests/cuda/cuda_without_gpu tests/cuda/emulation/cuda_emulation_tests \
    tests/graphs/test_graphs_cuda tests/unit/unit_autograd tests/conformance/conformance || return 1
  meson test -C "$build" --no-rebuild --print-errorlogs cuda_tests cuda_without_gpu cuda_emulation_tests \
    graphs_cuda unit_autograd --logbase testlog-emulated
  logs+=("$build/meson-logs/testlog-emulated.json")
  meson test -C "$build" --no-rebuild --print-errorlogs conformance --test-args="--test-case=*cpu_cuda" \
    --logbase testlog-emulated-cpu-cuda
  logs+=("$build/meson-logs/testlog-emulated-cpu-cuda.json")
}

for leg in ${TG_CI_LEGS:-$LEGS}; do
  started=$SECONDS
  echo "=== leg $leg"
  # A leg that does not configure or build counts as one failed case (a log that is missing).
  if [ "$leg" = normal ]; then built() { leg_normal "$@"; }; else built() { "leg_$leg"; }; fi
  built "$@" || { status=1; logs+=("leg-$leg-did-not-build"); }
  echo "=== leg $leg took $((SECONDS - started)) s"
done
python3 tools/count_tests.py "${logs[@]}" || status=1
exit $status
