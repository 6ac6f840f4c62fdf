#include "autograd/functions.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "autograd/autograd_meta.h"
#include "tensorgen/ops.h"

namespace tg::autograd {

namespace {

// A new uninitialised tensor with geometry g's sizes and strides, at storage offset 0.
Tensor empty_with_geometry(const TensorGeometry& g) {
  const TensorOptions options = TensorOptions().dtype(g.dtype).device(g.device);
  if (g.is_contiguous()) return tg::empty(g.sizes, options);
  int64_t extent = 1;
  for (size_t d = 0; d < g.sizes.size(); ++d) {
    if (g.sizes[d] == 0) return tg::empty(g.sizes, options);
    extent += (g.sizes[d] - 1) * g.strides[d];
  }
  return tg::empty({extent}, options).as_strided(g.sizes, g.strides, 0);
}

// Whether two indices of a (sizes, strides) geometry may reach the same element. Dims of
// size 1 do not count; sorted by stride, each stride must exceed what the smaller ones reach.
bool may_overlap(IntArrayRef sizes, IntArrayRef strides) {
  std::vector<std::pair<int64_t, int64_t>> dims;  // (stride, size)
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] > 1) dims.emplace_back(strides[d], sizes[d]);
  }
  std::sort(dims.begin(), dims.end());
  int64_t reach = 0;
  for (const auto& [stride, size] : dims) {
    if (stride <= reach) return true;
    reach += (size - 1) * stride;
  }
  return false;
}

}  // namespace

variable_list GraphRoot::apply(variable_list&& /*grads*/) { return std::move(grads_); }

variable_list ErrorNode::apply(variable_list&& /*grads*/) { TG_ERROR(message_); }

NotImplemented::NotImplemented(const std::string& op, edge_list next_edges)
    : ErrorNode("the derivative for '" + op + "' is not implemented.", std::move(next_edges)) {}

variable_list NotImplemented::apply(variable_list&& /*grads*/) { TG_THROW(NotImplementedError, message()); }

TensorGeometry::TensorGeometry(const Tensor& t)
    : sizes(t.sizes()), strides(t.strides()), storage_offset(t.storage_offset()), dtype(t.scalar_type()),
      device(t.device()) {}

bool TensorGeometry::is_contiguous() const {
  int64_t expected = 1;
  for (size_t d = sizes.size(); d-- > 0;) {
    if (sizes[d] == 0) return true;
    if (sizes[d] != 1 && strides[d] != expected) return false;
    expected *= sizes[d];
  }
  return true;
}

CopySlices::CopySlices(const Tensor& base, TensorGeometry view, std::shared_ptr<Node> fn)
    : base_(base), view_(std::move(view)), fn_(std::move(fn)) {
  TG_INTERNAL_ASSERT(fn_ != nullptr && fn_->num_outputs() >= 1,
                     "an in-place op's node must have its self as next edge 0");
  add_input_metadata(base);
  add_next_edge(impl::gradient_edge(base));
  for (size_t i = 1; i < fn_->num_outputs(); ++i) add_next_edge(fn_->next_edge(i));
}

void CopySlices::release_variables() {
  std::lock_guard<std::mutex> lock(fn_->mutex());
  fn_->release_variables();
}

// See Note [In-place on views]: grad_base = grad with its view part replaced by fn's gradient
// of that part; fn's other input gradients pass through.
variable_list CopySlices::apply(variable_list&& grads) {
  TG_INTERNAL_ASSERT(grads.size() == 1, "CopySlices expects one gradient, got ", grads.size());
  Tensor grad = std::move(grads[0]);
  if (!grad.defined()) return variable_list(num_outputs());

  Tensor result = empty_with_geometry(base_);
  result.copy_(grad);
  Tensor grad_slice = result.as_strided(view_.sizes, view_.strides, view_.storage_offset - base_.storage_offset);

  variable_list fn_grads;
  {
    std::lock_guard<std::mutex> lock(fn_->mutex());
    // fn may save or return its input, and grad_slice is written below: give it a copy.
    fn_grads = (*fn_)({grad_slice.clone()});
  }
  TG_CHECK(fn_grads.size() == fn_->num_outputs(), "Function ", fn_->name(),
           " returned an invalid number of gradients - expected ", fn_->num_outputs(), ", but got ", fn_grads.size());

  variable_list grad_inputs(num_outputs());
  for (size_t i = 0; i < fn_grads.size(); ++i) {
    if (!should_compute_output(i)) continue;
    if (i == 0) {
      if (fn_grads[0].defined()) {
        grad_slice.copy_(fn_grads[0]);
      } else {
        grad_slice.zero_();
      }
      grad_inputs[0] = std::move(result);
    } else {
      grad_inputs[i] = std::move(fn_grads[i]);
    }
  }
  return grad_inputs;
}

AsStridedViewBackward::AsStridedViewBackward(TensorGeometry base, TensorGeometry view, Edge base_edge)
    : Node({std::move(base_edge)}), base_(std::move(base)), view_(std::move(view)) {}

variable_list AsStridedViewBackward::apply(variable_list&& grads) {
  TG_INTERNAL_ASSERT(grads.size() == 1, "AsStridedBackward0 expects one gradient, got ", grads.size());
  Tensor grad = std::move(grads[0]);
  if (!grad.defined() || !should_compute_output(0)) return {Tensor()};

  // An expanded dim (stride 0) reads one element many times: its gradient is the sum.
  DimVector sizes = view_.sizes;
  std::vector<int64_t> expanded;
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (view_.strides[d] == 0 && sizes[d] > 1) {
      expanded.push_back(static_cast<int64_t>(d));
      sizes[d] = 1;
    }
  }
  if (!expanded.empty()) grad = grad.sum(IntArrayRef(expanded), /*keepdim=*/true);
  TG_CHECK_NOT_IMPLEMENTED(!may_overlap(sizes, view_.strides), "[", name(),
                           "] the gradient of a view whose elements overlap in memory (sizes ", view_.sizes,
                           ", strides ", view_.strides, ") is not supported");

  Tensor result = empty_with_geometry(base_);
  result.zero_();
  result.as_strided(sizes, view_.strides, view_.storage_offset - base_.storage_offset).copy_(grad);
  return {std::move(result)};
}

}  // namespace tg::autograd
