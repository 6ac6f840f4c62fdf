#!/usr/bin/env bash
# Instructions per op of bench_graphs' 50-op chain of 4x4 tensors, run eagerly and replayed
# from a recorded graph, counted by callgrind (noise-free, unlike wall-clock): runs
# build/bench/count_graph_replay with 100 and 200 runs of the chain and divides the
# difference by 100 * 50. Prints `graph_chain_eager_per_op_instructions N instructions`
# and `graph_chain_replay_per_node_instructions M instructions`.
set -euo pipefail
cd "$(dirname "$0")/.."
binary=${COUNT_GRAPH_REPLAY:-build/bench/count_graph_replay}
count() {
  local collected
  collected=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null "$binary" "$1" "$2" 2>&1 |
    sed -n 's/.*Collected : \([0-9]*\).*/\1/p')
  [ -n "$collected" ] || { echo "callgrind counted nothing: does $binary run?" >&2; exit 1; }
  echo "$collected"
}
for mode in eager replay; do
  small=$(count 100 "$mode")
  large=$(count 200 "$mode")
  label=$([ "$mode" = eager ] && echo eager_per_op || echo replay_per_node)
  echo "graph_chain_${label}_instructions $(( (large - small) / 5000 )) instructions"
done
