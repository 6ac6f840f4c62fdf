// Lint: checks that a graph is well formed. Every value is defined exactly once (as an input,
// a constant or a node output) before a node or the output list reads it; every node's
// operator is registered; its arguments line up with the schema (a value or value list for
// Tensor arguments, a constant of the schema's type otherwise); it has one output per return.
#pragma once

#include <string_view>

#include "jit/graph.h"

namespace tg::jit {

// Throws tg::ValueError, starting "<context>: node <k> (<op>): ...", at the first problem.
void lint_graph(const Graph& graph, std::string_view context = "[lint_graph]");

}  // namespace tg::jit
