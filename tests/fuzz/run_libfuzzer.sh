#!/usr/bin/env bash
# Runs one libFuzzer target over the seed corpus in the repository, for at most SECONDS.
#   run_libfuzzer.sh TARGET_EXE SEED_DIR WORK_DIR SECONDS [libFuzzer flags...]
# New inputs libFuzzer finds go to WORK_DIR/corpus (the repository's seeds stay as they are);
# a crashing input goes to WORK_DIR/crash-* and the exit status is non-zero. With -runs=N among
# the flags (the CI tests: a fixed budget with -seed) WORK_DIR/corpus starts empty, so every run
# does the same work; without it (tools/fuzz.sh) a long run goes on from what earlier ones found.
set -euo pipefail
exe=$1 seeds=$2 work=$3 seconds=$4
shift 4
for flag in "$@"; do
  case $flag in -runs=*) rm -rf "$work/corpus" ;; esac
done
mkdir -p "$work/corpus"
# Huge requests must come back as errors (tg::OutOfMemoryError), not ASan aborts.
export ASAN_OPTIONS="${ASAN_OPTIONS:-allocator_may_return_null=1:detect_leaks=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
exec "$exe" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=4096 -malloc_limit_mb=4096 \
  -artifact_prefix="$work/" -print_final_stats=1 "$@" "$work/corpus" "$seeds"
