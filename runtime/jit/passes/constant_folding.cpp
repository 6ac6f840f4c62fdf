#include "jit/passes/constant_folding.h"

#include <cstring>
#include <optional>
#include <unordered_map>

#include "autograd/grad_mode.h"
#include "dispatch/dispatcher.h"
#include "jit/alias_analysis.h"
#include "tensorgen/ops.h"

namespace tg::jit {
namespace {

bool is_pure(const FunctionSchema& schema) {
  if (schema.is_mutable()) return false;
  for (const Argument& arg : schema.arguments) {
    // A Generator argument means the operator draws random numbers.
    if (arg.type.base == BaseType::Generator) return false;
  }
  return true;
}

Stack make_stack(const Node& node, const Graph& graph) {
  Stack stack;
  for (const NodeArg& arg : node.args) {
    if (arg.kind == NodeArg::Kind::Value) {
      stack.emplace_back(graph.constant(arg.values[0]));
    } else if (arg.kind == NodeArg::Kind::ValueList) {
      std::vector<Tensor> list;
      for (int v : arg.values) list.push_back(graph.constant(v));
      stack.emplace_back(std::move(list));
    } else {
      stack.push_back(arg.constant);
    }
  }
  return stack;
}

bool same_bytes(const Tensor& a, const Tensor& b) {
  if (a.scalar_type() != b.scalar_type() || a.sizes() != b.sizes()) return false;
  const Tensor x = a.contiguous(), y = b.contiguous();
  return std::memcmp(x.data_ptr(), y.data_ptr(), x.nbytes()) == 0;
}

// The node's results, or nullopt when two evaluations disagree. The schemas' tags (which
// mark seeded random operators) do not reach the runtime registry, so the pass asks the
// operator itself: a random one (randn, randn_like) draws twice and differs. Its cost: the
// global generator advances during the pass. A result the schema marks as a view of an
// argument ("Tensor(a)": t, view, transpose...) stays that view of the constant, strides
// included: kernels then see the layout they see in eager (a transposed weight takes the
// same matrix-product path), and the graph never writes to a constant, so sharing is safe.
// Other results are cloned.
std::optional<std::vector<Tensor>> evaluate_if_deterministic(const OperatorHandle& op, const Node& node,
                                                             const Graph& graph) {
  Stack first = make_stack(node, graph), second = make_stack(node, graph);
  op.callBoxed(&first);
  op.callBoxed(&second);
  const std::vector<int> aliased = aliased_arguments(op.schema());
  std::vector<Tensor> results;
  for (size_t r = 0; r < node.outputs.size(); ++r) {
    const Tensor& a = first[r].toTensor();
    if (!same_bytes(a, second[r].toTensor())) return std::nullopt;
    results.push_back(r < aliased.size() && aliased[r] >= 0 ? a : a.clone());
  }
  return results;
}

}  // namespace

Graph fold_constants(const Graph& graph, int* folded) {
  Graph result = graph;
  std::vector<Node>& nodes = result.mutable_nodes();
  std::unordered_map<int, int> replaced;  // node output -> constant
  std::vector<Node> kept;
  int count = 0;
  NoGradGuard no_grad;
  for (Node node : nodes) {
    for (NodeArg& arg : node.args) {
      for (int& v : arg.values) {
        if (auto it = replaced.find(v); it != replaced.end()) v = it->second;
      }
    }
    const OperatorHandle op = Dispatcher::singleton().findSchemaOrThrow(node.op);
    bool foldable = is_pure(op.schema()) && !node.outputs.empty();
    for (const NodeArg& arg : node.args) {
      for (int v : arg.values) foldable = foldable && result.is_constant(v);
    }
    if (!foldable) {
      kept.push_back(std::move(node));
      continue;
    }
    std::optional<std::vector<Tensor>> results = evaluate_if_deterministic(op, node, result);
    if (!results) {
      kept.push_back(std::move(node));
      continue;
    }
    for (size_t r = 0; r < node.outputs.size(); ++r) replaced[node.outputs[r]] = result.add_constant((*results)[r]);
    ++count;
  }
  nodes = std::move(kept);
  for (int& v : result.mutable_outputs()) {
    if (auto it = replaced.find(v); it != replaced.end()) v = it->second;
  }
  if (folded != nullptr) *folded = count;
  return renumbered(result);
}

}  // namespace tg::jit
