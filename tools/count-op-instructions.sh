#!/usr/bin/env bash
# Instructions per 1-element tg::add, counted by callgrind (noise-free, unlike wall-clock):
# runs build/bench/count_add with 1000 and 2000 adds and divides the difference by 1000.
set -euo pipefail
cd "$(dirname "$0")/.."
count() {
  valgrind --tool=callgrind --callgrind-out-file=/dev/null build/bench/count_add "$1" 2>&1 |
    sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
small=$(count 1000)
large=$(count 2000)
echo "op_add_1elem_instructions $(( (large - small) / 1000 )) instructions"
