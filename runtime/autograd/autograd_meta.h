// AutogradMeta: what autograd knows about one tensor, in TensorImpl's autograd slot.
// A tensor requires grad when it is a leaf with requires_grad_ set, or when it has a grad_fn
// (the Node that made it; output_nr_ says which of that node's outputs it is). A tensor that
// requires grad carries the Autograd dispatch key, so its operations reach the generated
// autograd kernels; others skip autograd at no cost. See Note [Autograd key on demand].
// Views remember their base and geometry, so an in-place change of a view can rewrite the
// base's history (Note [In-place on views] in docs/autograd.md).
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "autograd/edge.h"
#include "autograd/tensor_hooks.h"
#include "core/dim_vector.h"
#include "core/tensor.h"

namespace tg::autograd {

class Node;
class AccumulateGrad;

struct AutogradMeta;

struct ViewInfo {
  Tensor base;               // the tensor this one views (never itself a view)
  DimVector sizes;           // the view's geometry over base's storage
  DimVector strides;
  int64_t storage_offset = 0;
  bool created_in_no_grad = false;  // in-place on such a view in grad mode is an error
};

// Where a retains_grad hook, which lives on the grad_fn and may outlive the tensor, writes
// the retained gradient: meta is reset to nullptr when the tensor's AutogradMeta dies.
struct RetainedGradSlot {
  std::mutex mutex;  // guards meta and, while held, meta->grad_
  AutogradMeta* meta = nullptr;
};

// A tensor's tangent at one dual level, shared with that level: exiting the level empties
// it, which frees the tangent and so breaks the cycles forward-over-reverse builds (a saved
// output keeps its tangent, whose history saves the output again), as PyTorch's ForwardGrad.
struct TangentSlot {
  Tensor value;
};

struct AutogradMeta final : AutogradMetaInterface {
  AutogradMeta() = default;
  AutogradMeta(const AutogradMeta&) = delete;
  AutogradMeta& operator=(const AutogradMeta&) = delete;
  ~AutogradMeta() override;

  // requires_grad == requires_grad_ || grad_fn_ || (a view made in grad mode whose base
  // requires grad), as PyTorch's DifferentiableViewMeta.
  bool requires_grad() const override {
    return requires_grad_ || grad_fn_ != nullptr ||
           (view_ != nullptr && !view_->created_in_no_grad && view_->base.requires_grad());
  }

  Tensor grad_;
  std::shared_ptr<Node> grad_fn_;
  // Leaves: their AccumulateGrad, made on demand and kept (Note [The leaf holds its
  // AccumulateGrad] in docs/autograd.md).
  std::shared_ptr<AccumulateGrad> grad_accumulator_;
  // Guards grad_accumulator_. Every operation that records a leaf takes it, for a few
  // instructions (or while one node is made), so it is a spin lock rather than mutex_.
  std::atomic_flag grad_accumulator_lock_;
  uint32_t output_nr_ = 0;
  bool requires_grad_ = false;  // set on leaves only
  bool retains_grad_ = false;
  std::shared_ptr<RetainedGradSlot> retained_grad_slot_;  // made by retain_grad()
  // This tensor's hooks, shared with the node that runs them (grad_fn_ for a non-leaf, read
  // by AccumulateGrad for a leaf). Reset when grad_fn_ changes: hooks registered earlier stay
  // with the old grad_fn, as in PyTorch.
  std::shared_ptr<TensorHookList> hooks_;
  unsigned next_hook_id_ = 0;

  // Forward-mode tangents, one per dual level (level id, slot). The slot is shared with its
  // level, which empties it on exit; the emptied entries are dropped lazily. See Note
  // [Forward AD levels] in autograd/forward_ad.h.
  std::vector<std::pair<uint64_t, std::shared_ptr<TangentSlot>>> tangents_;

  std::unique_ptr<ViewInfo> view_;        // set when this tensor is a differentiable view
  uint32_t grad_fn_version_ = 0;          // the version its view grad_fn was made for

  // Guards grad_ updates by AccumulateGrad, and a view's grad_fn_ regeneration.
  std::mutex mutex_;
};

namespace impl {

// The tensor's AutogradMeta, or nullptr when it has none.
AutogradMeta* get_autograd_meta(const TensorBase& t);
// The tensor's AutogradMeta, created when missing.
AutogradMeta* materialize_autograd_meta(const TensorBase& t);

// t.grad_fn(). For a view whose version moved since its grad_fn was made (it or its base
// was modified in place), first regenerates its grad_fn over the base's current history.
const std::shared_ptr<Node>& grad_fn(const Tensor& t);

// The edge a gradient for `t` flows into: its grad_fn (and output_nr), or its AccumulateGrad
// when it is a leaf that requires grad, or an invalid edge.
Edge gradient_edge(const Tensor& t);
// The leaf's AccumulateGrad node (kept by the leaf and shared); nullptr when t does not
// require grad.
std::shared_ptr<Node> grad_accumulator(const Tensor& t);
// Lets the leaf's AccumulateGrad go, so that the next graph gets a new one (set_data, after a
// dtype change); graphs that still reach the old node accumulate through it into the leaf.
void release_grad_accumulator(const Tensor& leaf);

// Records that `t` is output `edge.input_nr` of `edge.function`; adds the Autograd key.
void set_gradient_edge(const Tensor& t, Edge edge);
// For an in-place operation on `t` whose new history is `edge`: a view's base gets a
// CopySlices node and the view's grad_fn is regenerated from it; other tensors simply get
// the new edge.
void rebase_history(const Tensor& t, Edge edge);
// Records that `view` (a fresh output of a view operation on `base`, sharing its storage)
// views base, or base's own base when base is a view. Called in no-grad mode it marks the
// view so that a later in-place on it in grad mode raises (check_inplace).
void set_view_of(const Tensor& view, const Tensor& base);

// When t is a view (TensorImpl::view_base) that autograd has not recorded as one (its base
// did not require grad when it was made), records it now, so that an in-place write into it
// rebases its base's history. See Note [Views of tensors without autograd] in docs/autograd.md.
void adopt_untracked_view(const Tensor& t);

// A new tensor sharing t's storage, shape and version counter, with no autograd history.
Tensor alias_without_history(const Tensor& t);

}  // namespace impl
}  // namespace tg::autograd
