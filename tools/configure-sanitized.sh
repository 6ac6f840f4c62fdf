#!/usr/bin/env bash
# Configures the sanitized build (ASan + UBSan, clang, libFuzzer targets) in the folder given
# (default build-san), once; later runs reuse it. See docs/reliability.md for what it runs.
# Extra arguments go to `meson setup`.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build-san}
shift || true
tools/setup.sh clang libclang-rt-14-dev
tools/setup-venv.sh > /dev/null
if [ ! -f "$dir/build.ninja" ]; then
  # -O0 -g1: compiling is the cost of this leg on CI's two cores (the tests run quickly
  # even unoptimized), and -O0 compiles about twice as fast as -O1; -g1 keeps line numbers in
  # sanitizer reports. fuzzer-no-link gives libFuzzer coverage of the library, not just of the
  # targets. No CUDA, no benchmarks: nothing they add is checked here. No -Werror: the normal
  # (gcc) leg enforces warnings; clang warns about gcc-only pragmas and the like.
  CC=clang CXX=clang++ meson setup "$dir" \
    -Dcuda=disabled -Dbenchmarks=false -Dfuzzing=enabled \
    -Db_sanitize=address,undefined -Db_lundef=false \
    -Dbuildtype=plain -Dcpp_args="-O0 -g1 -fno-omit-frame-pointer -fsanitize=fuzzer-no-link" -Dwerror=false \
    "$@"
fi
