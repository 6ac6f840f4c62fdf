// Dead-code elimination: drops nodes whose outputs nothing reads, unless they write into an
// argument (a "(a!)" annotation: the write is their effect). Runs backwards, so chains of
// dead nodes go in one pass. The result is renumbered (graph.h).
#pragma once

#include "jit/graph.h"

namespace tg::jit {

// Returns the graph without its dead nodes; `removed`, when given, receives how many went.
Graph eliminate_dead_code(const Graph& graph, int* removed = nullptr);

}  // namespace tg::jit
