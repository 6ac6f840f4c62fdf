#!/usr/bin/env bash
# The CNN example trains to high accuracy: its final line reports at least 90% on the
# held-out images after 2 epochs, eval mode (BatchNorm's running statistics) included, and
# bad options fail with a usage message.
set -euo pipefail
exe="$1"
output="$("$exe" --epochs 2)"
echo "$output"
final="$(echo "$output" | tail -1)"
accuracy="$(echo "$final" | sed -n 's/^final test accuracy: \([0-9.]*\)%$/\1/p')"
[ -n "$accuracy" ] || { echo "FAIL: no final accuracy line: $final"; exit 1; }
awk -v a="$accuracy" 'BEGIN { exit !(a >= 90) }' || { echo "FAIL: final accuracy $accuracy% < 90%"; exit 1; }
err="$(mktemp)"
trap 'rm -f "$err"' EXIT
if "$exe" --batch-size 0 2>"$err"; then echo "FAIL: --batch-size 0 accepted"; exit 1; fi
grep -q "expects a positive integer" "$err" || { echo "FAIL: unclear message"; cat "$err"; exit 1; }
echo "PASS: final accuracy $accuracy%"
