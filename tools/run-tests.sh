#!/usr/bin/env bash
# Builds tensorgen and runs every test suite (unit, codegen, conformance, cuda).
# The last line is "N passed, N failed", counted from the test cases the suites report.
# Arguments are passed to `meson test` (e.g. --suite unit).
set -uo pipefail
cd "$(dirname "$0")/.."
tools/configure.sh || exit 1
ninja -C build || exit 1
meson test -C build --print-errorlogs "$@"
status=$?
python3 tools/count_tests.py build/meson-logs/testlog.json || status=1
exit $status
