#!/usr/bin/env bash
# The long fuzzing run: every libFuzzer target of tests/fuzz (or those named) for SECONDS each
# (default 600), in the sanitized build (tools/configure-sanitized.sh, built here if needed),
# from a random seed, going on from what earlier runs found (build-san/tests/fuzz/work-NAME).
#   tools/fuzz.sh [SECONDS] [NAME...]        e.g. tools/fuzz.sh 3600 graph_yaml safetensors
# Extra libFuzzer flags through TG_FUZZ_FLAGS (e.g. "-jobs=4 -workers=4"). A crash leaves its
# input in the work folder and the status non-zero. See docs/reliability.md.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-600}
shift || true
build=build-san
tools/configure-sanitized.sh "$build"
ninja -C "$build" build.ninja > /dev/null
if [ $# -eq 0 ]; then
  mapfile -t names < <(python3 tools/test_targets.py "$build" --suite fuzz | sed -n 's|^tests/fuzz/fuzz_||p')
else
  names=("$@")
fi
nice ninja -C "$build" "${names[@]/#/tests/fuzz/fuzz_}"
status=0
for name in "${names[@]}"; do
  echo "=== fuzz_$name for $seconds s"
  # shellcheck disable=SC2086  # flags are words
  tests/fuzz/run_libfuzzer.sh "$build/tests/fuzz/fuzz_$name" "tests/fuzz/corpus/$name" \
    "$build/tests/fuzz/work-$name" "$seconds" ${TG_FUZZ_FLAGS:-} || status=1
done
exit $status
