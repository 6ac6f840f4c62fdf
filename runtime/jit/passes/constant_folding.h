// Constant folding: evaluates every node that is pure (writes no argument, takes no
// Generator, and gives the same bytes when evaluated twice) and whose tensor arguments are
// all constants (factories have none), and replaces its outputs by constants (a view stays a
// view of its constant, strides included). Dead code is left for
// eliminate_dead_code. The result is renumbered (graph.h).
#pragma once

#include "jit/graph.h"

namespace tg::jit {

// Returns the folded graph; `folded`, when given, receives how many nodes were folded.
Graph fold_constants(const Graph& graph, int* folded = nullptr);

}  // namespace tg::jit
