#include "jit/alias_analysis.h"

#include <numeric>

#include "core/error.h"
#include "dispatch/dispatcher.h"

namespace tg::jit {

std::vector<int> aliased_arguments(const FunctionSchema& schema) {
  std::vector<int> result;
  for (const Argument& ret : schema.returns) {
    int aliased = -1;
    if (ret.type.alias.has_value()) {
      for (size_t i = 0; i < schema.arguments.size(); ++i) {
        const auto& alias = schema.arguments[i].type.alias;
        if (alias.has_value() && alias->set == ret.type.alias->set) {
          aliased = static_cast<int>(i);
          break;
        }
      }
    }
    result.push_back(aliased);
  }
  return result;
}

AliasInfoOfGraph analyze_aliases(const Graph& graph) {
  const int n = graph.num_values();
  AliasInfoOfGraph info;
  info.root_of.resize(static_cast<size_t>(n));
  std::iota(info.root_of.begin(), info.root_of.end(), 0);
  info.class_is_input.assign(static_cast<size_t>(n), false);
  info.class_is_output.assign(static_cast<size_t>(n), false);
  info.class_is_written.assign(static_cast<size_t>(n), false);
  info.class_last_use.assign(static_cast<size_t>(n), -1);
  auto root = [&](int v) { return info.root_of[static_cast<size_t>(v)]; };
  const std::vector<Node>& nodes = graph.nodes();
  for (size_t k = 0; k < nodes.size(); ++k) {
    const Node& node = nodes[k];
    const OperatorHandle op = Dispatcher::singleton().findSchemaOrThrow(node.op);
    const FunctionSchema& schema = op.schema();
    const std::vector<int> aliased = aliased_arguments(schema);
    for (size_t a = 0; a < node.args.size() && a < schema.arguments.size(); ++a) {
      for (int v : node.args[a].values) {
        info.class_last_use[static_cast<size_t>(root(v))] = static_cast<int>(k);
        const auto& alias = schema.arguments[a].type.alias;
        if (alias.has_value() && alias->is_write) info.class_is_written[static_cast<size_t>(root(v))] = true;
      }
    }
    for (size_t r = 0; r < node.outputs.size() && r < aliased.size(); ++r) {
      const int out = node.outputs[r];
      if (aliased[r] >= 0 && static_cast<size_t>(aliased[r]) < node.args.size() &&
          node.args[static_cast<size_t>(aliased[r])].kind == NodeArg::Kind::Value) {
        info.root_of[static_cast<size_t>(out)] = root(node.args[static_cast<size_t>(aliased[r])].values[0]);
      }
      info.class_last_use[static_cast<size_t>(root(out))] =
          std::max(info.class_last_use[static_cast<size_t>(root(out))], static_cast<int>(k));
    }
  }
  // A constant belongs to the graph, like an input: nothing may be planned over it.
  for (int v : graph.inputs()) info.class_is_input[static_cast<size_t>(root(v))] = true;
  for (int v = 0; v < n; ++v) {
    if (graph.is_constant(v)) info.class_is_input[static_cast<size_t>(root(v))] = true;
  }
  for (int v : graph.outputs()) info.class_is_output[static_cast<size_t>(root(v))] = true;
  return info;
}

}  // namespace tg::jit
