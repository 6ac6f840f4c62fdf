#!/usr/bin/env bash
# Instructions per 1-element tg::add, counted by callgrind (noise-free, unlike wall-clock):
# runs build/bench/count_add with 1000 and 2000 adds and divides the difference by 1000.
# With the argument `add_grad`, the same add with one input requiring grad (each add records
# its autograd node); with `narrow`, a 1-element narrow view (no autograd).
set -euo pipefail
cd "$(dirname "$0")/.."
count() {
  valgrind --tool=callgrind --callgrind-out-file=/dev/null build/bench/count_add "$1" "$op" 2>&1 |
    sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
op=${1:-add}
small=$(count 1000)
large=$(count 2000)
echo "op_${op}_1elem_instructions $(( (large - small) / 1000 )) instructions"
