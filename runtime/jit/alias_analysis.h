// Alias analysis from the schemas' alias annotations. A node's output that the schema marks
// "Tensor(a)" (a view) or "Tensor(a!)" (in-place or out=) shares storage with the argument of
// the same alias set; all values that share storage form one alias class, whose root is the
// value that owns the storage (a graph input or the output of an allocating node).
// Invariant: root_of[v] <= v for every value v (a root is defined before its aliases).
#pragma once

#include <vector>

#include "dispatch/function_schema.h"
#include "jit/graph.h"

namespace tg::jit {

struct AliasInfoOfGraph {
  std::vector<int> root_of;                // per value: the root of its alias class
  std::vector<bool> class_is_input;        // per root: the class holds a graph input or constant
  std::vector<bool> class_is_output;       // per root: the class holds a graph output
  std::vector<bool> class_is_written;      // per root: some node writes into the class
  std::vector<int> class_last_use;         // per root: the last node that reads any member (-1: none)
};

// For each schema return: the index of the argument it aliases, or -1 for a fresh tensor.
std::vector<int> aliased_arguments(const FunctionSchema& schema);
// Throws tg::ValueError (naming the node) when a node's operator is not registered.
AliasInfoOfGraph analyze_aliases(const Graph& graph);

}  // namespace tg::jit
