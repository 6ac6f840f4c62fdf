#!/usr/bin/env bash
# Configures the sanitized build (ASan + UBSan, clang, libFuzzer targets) in the folder given
# (default build-san), once; later runs reuse it. See docs/reliability.md for what it runs.
# Extra arguments go to `meson setup`.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build-san}
shift || true
tools/setup.sh
tools/setup-venv.sh > /dev/null
if [ ! -f "$dir/build.ninja" ]; then
  # -O1: the sanitizers' usual level, about half the compile time of -O3 and fast enough to
  # run the unit suites; fuzzer-no-link gives libFuzzer coverage of the library, not just of
  # the targets. No CUDA, no benchmarks: nothing they add is checked here.
  CC=clang CXX=clang++ meson setup "$dir" \
    -Dcuda=disabled -Dbenchmarks=false -Dfuzzing=enabled \
    -Db_sanitize=address,undefined -Db_lundef=false \
    -Dbuildtype=plain -Dcpp_args="-O1 -g -fno-omit-frame-pointer -fsanitize=fuzzer-no-link" \
    "$@"
fi
