// Helpers the generated autograd kernels (VariableType_*.cpp) call, so that the generator
// emits only what differs per operator. Each takes the forward op's tensor arguments.
#pragma once

#include <memory>
#include <optional>
#include <string_view>
#include <tuple>
#include <vector>

#include "autograd/autograd_meta.h"
#include "autograd/grad_mode.h"
#include "autograd/node.h"

namespace tg::autograd {

namespace detail {
inline bool any_requires_grad(const Tensor& t) { return t.defined() && t.requires_grad(); }
inline bool any_requires_grad(const std::optional<Tensor>& t) { return t.has_value() && any_requires_grad(*t); }
inline bool any_requires_grad(TensorList list) {
  for (const Tensor& t : list) {
    if (any_requires_grad(t)) return true;
  }
  return false;
}
inline bool any_requires_grad(const std::vector<std::optional<Tensor>>& list) {  // Tensor?[]
  for (const auto& t : list) {
    if (t && any_requires_grad(*t)) return true;
  }
  return false;
}

inline void append_edges(edge_list& edges, const Tensor& t) {
  edges.push_back(t.defined() ? impl::gradient_edge(t) : Edge());
}
inline void append_edges(edge_list& edges, const std::optional<Tensor>& t) {
  edges.push_back(t.has_value() && t->defined() ? impl::gradient_edge(*t) : Edge());
}
inline void append_edges(edge_list& edges, TensorList list) {
  for (const Tensor& t : list) append_edges(edges, t);
}
}  // namespace detail

// Whether the op must record: grad mode is on and some differentiable input requires grad.
template <typename... Tensors>
bool compute_requires_grad(const Tensors&... tensors) {
  return GradMode::is_enabled() && (detail::any_requires_grad(tensors) || ...);
}

// One edge per differentiable input (a Tensor[] gives one per element), in order.
template <typename... Tensors>
edge_list collect_next_edges(const Tensors&... tensors) {
  edge_list edges;
  edges.reserve(sizeof...(Tensors));  // one allocation for the usual one edge per argument
  (detail::append_edges(edges, tensors), ...);
  return edges;
}

// Makes `node` the grad_fn of the op's outputs: output i of the node is the i-th tensor
// given. Undefined tensors and tensors of non-floating dtype get no history (they cannot
// require grad), but keep their position.
void set_history(const Tensor& output, const std::shared_ptr<Node>& node);
void set_history(const std::vector<Tensor>& outputs, const std::shared_ptr<Node>& node);
// For an output that is not differentiable, so later outputs keep their positions.
void skip_history(const std::shared_ptr<Node>& node);
// After an in-place operation recorded as `node`: self is the node's only output.
inline void set_inplace_history(const Tensor& self, const std::shared_ptr<Node>& node) {
  node->add_input_metadata(self);
  impl::rebase_history(self, Edge(node, 0));
}

// After an in-place operation on a Tensor(a!)[] self (the _fused_ optimizer steps) recorded
// as `node`: element i of self is output i of the node. Only a node that raises in backward
// (no derivative) is recorded this way, so views among the elements need no CopySlices.
void set_inplace_history(TensorList self, const std::shared_ptr<Node>& node);

// Raises the PyTorch error for an in-place operation on a leaf that requires grad, or on a
// view of one (when recording), and for in-place on a view created in no-grad mode.
void check_inplace(std::string_view op, const Tensor& self, bool requires_grad);
// The same for each element of a Tensor(a!)[] self.
void check_inplace(std::string_view op, TensorList self, bool requires_grad);
// Raises the error for out= variants when an input requires grad.
void check_no_requires_grad_for_out(std::string_view op, bool requires_grad);

// The node that raises "derivative for <op> is not implemented" when backward reaches it.
std::shared_ptr<Node> make_not_implemented_node(std::string op, edge_list next_edges);

// What a formula reads of a Tensor[] input (PyTorch's to_args_sizes and
// to_args_scalartypes): each element's sizes, or dtype, saved in place of the list.
std::vector<std::vector<int64_t>> to_args_sizes(TensorList tensors);
std::vector<ScalarType> to_args_scalartypes(TensorList tensors);

// Whether `shape` broadcasts to `desired` (NumPy rules, trailing dims aligned).
bool is_expandable_to(IntArrayRef shape, IntArrayRef desired);
// Reduces `grad` by summation to `sizes` (the inverse of broadcasting): sums the leading
// dims grad has beyond sizes and the dims where sizes is 1 and grad is not. Returns grad
// itself when the shapes already agree; raises when grad's shape is not a broadcast of sizes.
Tensor sum_to(const Tensor& grad, IntArrayRef sizes);

}  // namespace tg::autograd
