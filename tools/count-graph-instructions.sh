#!/usr/bin/env bash
# Instructions per run of one bench_graph case, eager and through StaticModule, counted by
# callgrind (noise-free, unlike wall-clock on a shared machine): runs `bench_graph count` with
# N and 2N iterations and divides the difference by N, so setup (tracing, planning) cancels.
# Usage: tools/count-graph-instructions.sh [case] [N]   (default mlp_infer_b1 200)
set -euo pipefail
cd "$(dirname "$0")/.."
case_name=${1:-mlp_infer_b1}
n=${2:-200}
count() {
  OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 valgrind --tool=callgrind --callgrind-out-file=/dev/null \
    build/bench/bench_graph count "$case_name" "$1" "$2" 2>&1 | sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
for mode in eager static frozen; do
  small=$(count "$mode" "$n")
  large=$(count "$mode" $((2 * n)))
  echo "graph.${case_name}.${mode}_instructions $(( (large - small) / n )) instructions"
done
