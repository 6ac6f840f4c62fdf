// The hand-written backward nodes: the engine's GraphRoot, nodes that raise when reached,
// and the two nodes of Note [In-place on views] (docs/autograd.md): CopySlices, the new
// history of a base after an in-place change of one of its views, and
// AsStridedViewBackward, the history of a view regenerated over its base's history.
#pragma once

#include <limits>
#include <string>

#include "autograd/node.h"

namespace tg::autograd {

// The engine's first node: returns the root gradients, one per root edge.
class GraphRoot final : public Node {
 public:
  GraphRoot(edge_list roots, variable_list grads)
      : Node(std::numeric_limits<uint64_t>::max(), std::move(roots)), grads_(std::move(grads)) {}
  std::string name() const override { return "GraphRoot"; }

 protected:
  variable_list apply(variable_list&& grads) override;

 private:
  variable_list grads_;
};

// Raises tg::Error(message) when backward reaches it.
class ErrorNode : public Node {
 public:
  ErrorNode(std::string message, edge_list next_edges) : Node(std::move(next_edges)), message_(std::move(message)) {}
  std::string name() const override { return "Error"; }

 protected:
  variable_list apply(variable_list&& grads) override;
  const std::string& message() const noexcept { return message_; }

 private:
  std::string message_;
};

// The grad_fn of an operator without a derivative formula: raises tg::NotImplementedError
// "the derivative for '<op>' is not implemented." when backward reaches it.
class NotImplemented final : public ErrorNode {
 public:
  NotImplemented(const std::string& op, edge_list next_edges);
  std::string name() const override { return "NotImplemented"; }

 protected:
  variable_list apply(variable_list&& grads) override;
};

// Shape, strides and offset of a tensor, without its data (nodes keep this, not the tensor,
// where keeping the tensor would be a cycle or would keep memory alive).
struct TensorGeometry {
  TensorGeometry() = default;
  explicit TensorGeometry(const Tensor& t);
  bool is_contiguous() const;

  DimVector sizes;
  DimVector strides;
  int64_t storage_offset = 0;
  ScalarType dtype = ScalarType::Undefined;
  Device device{DeviceType::CPU};
};

// The new grad_fn of a base after an in-place op `fn` on a view of it: the base's gradient
// is the incoming gradient with the view's part replaced by what fn makes of that part.
// next_edges_[0] is the base's previous history; next_edges_[i > 0] are fn's.
class CopySlices final : public Node {
 public:
  CopySlices(const Tensor& base, TensorGeometry view, std::shared_ptr<Node> fn);
  std::string name() const override { return "CopySlices"; }
  void release_variables() override;

 protected:
  variable_list apply(variable_list&& grads) override;

 private:
  TensorGeometry base_;
  TensorGeometry view_;
  std::shared_ptr<Node> fn_;
};

// The grad_fn of a view regenerated after it or its base was modified in place: scatters the
// view's gradient into a zero gradient of the base's geometry (summing over expanded dims).
class AsStridedViewBackward final : public Node {
 public:
  AsStridedViewBackward(TensorGeometry base, TensorGeometry view, Edge base_edge);
  std::string name() const override { return "AsStridedBackward0"; }

 protected:
  variable_list apply(variable_list&& grads) override;

 private:
  TensorGeometry base_;
  TensorGeometry view_;
};

}  // namespace tg::autograd
