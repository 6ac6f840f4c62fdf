// AccumulateGrad: the node at a leaf that requires grad; it adds the gradient it receives
// into the leaf's .grad(): after a backward pass, grad == (grad before, or 0) + incoming.
// Made by impl::grad_accumulator. See Note [The leaf holds its AccumulateGrad] in
// docs/autograd.md: the leaf's AutogradMeta holds this node, and the node holds the leaf
// only weakly (a pointer the leaf clears when it is freed), so that recording an operation
// on a leaf does not make a new node each time, and there is no cycle.
// Threading: the engine holds mutex() while it runs, and it updates .grad() under the
// leaf's AutogradMeta mutex, so two backward passes may reach the same leaf at once.
#pragma once

#include <memory>
#include <mutex>

#include "autograd/node.h"

namespace tg::autograd {

class AccumulateGrad final : public Node {
 public:
  // Runs as soon as it is ready (highest sequence_nr), as in PyTorch.
  explicit AccumulateGrad(const Tensor& leaf);

  std::string name() const override { return "AccumulateGrad"; }
  // Runs the leaf's tensor hooks, read from the leaf each time (hooks registered after this
  // node was made are seen), or those the leaf left behind when it was freed.
  variable_list call_tensor_pre_hooks(variable_list grads) override;
  // The leaf, or an undefined tensor once the leaf has been freed.
  Tensor variable() const;
  // Whether what this node recorded of the leaf (shape, dtype, device, the stream it was made
  // on) still holds: a node that no graph reaches is made again when it does not.
  // Inline: impl::grad_accumulator asks on every operation that records the leaf.
  bool describes(const Tensor& leaf) const {
    const InputMetadata& recorded = input_metadata(0);
    const TensorImpl* leaf_impl = leaf.unsafeGetTensorImpl();
    return recorded.dtype == leaf_impl->dtype() && recorded.device == leaf_impl->device() &&
           recorded.sizes.ref() == leaf_impl->sizes() && (recorded.stream_id < 0 || stream_is_current());
  }

  // Called by the leaf's AutogradMeta as the leaf is freed: later gradients still run the
  // leaf's hooks (as PyTorch's node, which keeps the leaf alive, would) and are dropped.
  void leaf_freed(std::shared_ptr<TensorHookList> hooks);
  // Called when the leaf lets go of this node while graphs still reach it (set_data): from
  // then on the node holds the leaf strongly, as PyTorch's does.
  void hold_leaf(Tensor leaf);

 protected:
  variable_list apply(variable_list&& grads) override;

 private:
  // Whether the stream recorded for the leaf's device is still its current stream.
  bool stream_is_current() const;

  mutable std::mutex leaf_mutex_;  // guards the three members below
  TensorImpl* leaf_;               // cleared by leaf_freed
  Tensor held_leaf_;               // set by hold_leaf
  std::shared_ptr<TensorHookList> freed_leaf_hooks_;
};

}  // namespace tg::autograd
