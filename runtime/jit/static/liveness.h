// Liveness: which storages the static runtime manages, and for how long each must live.
// A managed buffer is the root of an alias class (see jit/alias_analysis.h) that a node
// allocates, that is no graph input or output, and that the caller says it can size. Its
// lifetime runs from its defining node to the last node that reads any value of its class,
// so a view that outlives its base's last direct use keeps the base alive, and an in-place
// write counts as a use.
#pragma once

#include <cstdint>
#include <vector>

#include "jit/alias_analysis.h"
#include "jit/graph.h"
#include "jit/static/memory_planner.h"

namespace tg::jit {

struct ManagedBuffer {
  int root = -1;  // the value that owns the storage
  BufferLifetime lifetime;
};

// Per value: the index of the node that defines it, -1 for graph inputs.
std::vector<int> defining_nodes(const Graph& graph);

// bytes_of_root[v] >= 0 for roots the caller can place (known size, an out= variant to write
// them); -1 for the rest, which are never managed. Returns the managed buffers in value order.
std::vector<ManagedBuffer> managed_buffers(const Graph& graph, const AliasInfoOfGraph& aliases,
                                           const std::vector<int64_t>& bytes_of_root);

}  // namespace tg::jit
