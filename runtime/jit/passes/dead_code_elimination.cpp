#include "jit/passes/dead_code_elimination.h"

#include "dispatch/dispatcher.h"

namespace tg::jit {

Graph eliminate_dead_code(const Graph& graph, int* removed) {
  std::vector<bool> used(static_cast<size_t>(graph.num_values()), false);
  for (int v : graph.outputs()) used[static_cast<size_t>(v)] = true;
  const std::vector<Node>& nodes = graph.nodes();
  std::vector<bool> keep(nodes.size(), false);
  for (size_t k = nodes.size(); k-- > 0;) {
    const Node& node = nodes[k];
    bool live = Dispatcher::singleton().findSchemaOrThrow(node.op).schema().is_mutable();
    for (int v : node.outputs) live = live || used[static_cast<size_t>(v)];
    if (!live) continue;
    keep[k] = true;
    for (const NodeArg& arg : node.args) {
      for (int v : arg.values) used[static_cast<size_t>(v)] = true;
    }
  }
  Graph pruned = graph;
  std::vector<Node>& kept = pruned.mutable_nodes();
  kept.clear();
  for (size_t k = 0; k < nodes.size(); ++k) {
    if (keep[k]) kept.push_back(nodes[k]);
  }
  if (removed != nullptr) *removed = static_cast<int>(nodes.size() - kept.size());
  return renumbered(pruned);
}

}  // namespace tg::jit
