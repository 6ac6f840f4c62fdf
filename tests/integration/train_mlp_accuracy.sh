#!/usr/bin/env bash
# The main example trains to high accuracy: its final line reports at least 90% on the
# held-out points after 15 epochs, and bad options fail with a usage message.
set -euo pipefail
exe="$1"
output="$("$exe" --epochs 15)"
echo "$output"
final="$(echo "$output" | tail -1)"
accuracy="$(echo "$final" | sed -n 's/^final test accuracy: \([0-9.]*\)%$/\1/p')"
[ -n "$accuracy" ] || { echo "FAIL: no final accuracy line: $final"; exit 1; }
awk -v a="$accuracy" 'BEGIN { exit !(a >= 90) }' || { echo "FAIL: final accuracy $accuracy% < 90%"; exit 1; }
if "$exe" --epochs 0 2>/tmp/train_mlp_err; then echo "FAIL: --epochs 0 accepted"; exit 1; fi
grep -q "expects a positive integer" /tmp/train_mlp_err || { echo "FAIL: unclear message"; cat /tmp/train_mlp_err; exit 1; }
if "$exe" --device tpu 2>/tmp/train_mlp_err; then echo "FAIL: --device tpu accepted"; exit 1; fi
grep -q "expects cpu or cuda" /tmp/train_mlp_err || { echo "FAIL: unclear message"; cat /tmp/train_mlp_err; exit 1; }
echo "PASS: final accuracy $accuracy%"
