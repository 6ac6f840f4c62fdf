#include "jit/static/liveness.h"

#include "core/error.h"

namespace tg::jit {

std::vector<int> defining_nodes(const Graph& graph) {
  std::vector<int> defined_by(static_cast<size_t>(graph.num_values()), -1);
  for (size_t k = 0; k < graph.nodes().size(); ++k) {
    for (int v : graph.nodes()[k].outputs) defined_by[static_cast<size_t>(v)] = static_cast<int>(k);
  }
  return defined_by;
}

std::vector<ManagedBuffer> managed_buffers(const Graph& graph, const AliasInfoOfGraph& aliases,
                                           const std::vector<int64_t>& bytes_of_root) {
  TG_CHECK_VALUE(bytes_of_root.size() == static_cast<size_t>(graph.num_values()), "[managed_buffers] got ",
                 bytes_of_root.size(), " sizes for ", graph.num_values(), " values");
  const std::vector<int> defined_by = defining_nodes(graph);
  std::vector<ManagedBuffer> result;
  for (int v = 0; v < graph.num_values(); ++v) {
    const auto i = static_cast<size_t>(v);
    if (aliases.root_of[i] != v || bytes_of_root[i] < 0 || defined_by[i] < 0) continue;
    if (aliases.class_is_input[i] || aliases.class_is_output[i]) continue;
    ManagedBuffer buffer;
    buffer.root = v;
    buffer.lifetime.size = bytes_of_root[i];
    buffer.lifetime.first_use = defined_by[i];
    buffer.lifetime.last_use = std::max(defined_by[i], aliases.class_last_use[i]);
    result.push_back(buffer);
  }
  return result;
}

}  // namespace tg::jit
