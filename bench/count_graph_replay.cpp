// count_graph_replay N eager|replay: N runs of bench_graphs' 50-op chain of 4x4 tensors, run
// eagerly or replayed from a tg::graphs::Graph, after a warm-up, for instruction counts under
// `valgrind --tool=callgrind` (tools/count-replay-instructions.sh runs it for N and 2N and
// divides the difference by 50 N: instructions per op, or per replayed node).
#include <cstdlib>
#include <cstring>

#include <tensorgen/tensorgen.h>

#include "graph_chain.h"
#include "graphs/graphs.h"

int main(int argc, char** argv) {
  const long n = argc > 1 ? std::atol(argv[1]) : 100;
  const bool replay = argc > 2 && std::strcmp(argv[2], "replay") == 0;
  tg::manual_seed(0);
  const bench::GraphChain chain;
  chain();
  tg::graphs::Graph graph;
  graph.capture_begin();
  chain();
  graph.capture_end();
  for (int i = 0; i < 10; ++i) replay ? graph.replay() : chain();
  for (long i = 0; i < n; ++i) replay ? graph.replay() : chain();
  return 0;
}
