// AccumulateGrad: the node at a leaf that requires grad; it adds the gradient it receives
// into the leaf's .grad(): after a backward pass, grad == (grad before, or 0) + incoming.
// Made once per leaf by impl::grad_accumulator. The leaf holds it weakly, the nodes whose
// edges point at it hold it strongly, and it holds the leaf (so no cycle).
// Threading: the engine holds mutex() while it runs, and it updates .grad() under the
// leaf's AutogradMeta mutex, so two backward passes may reach the same leaf at once.
#pragma once

#include <limits>

#include "autograd/node.h"

namespace tg::autograd {

class AccumulateGrad final : public Node {
 public:
  // Runs as soon as it is ready (highest sequence_nr), as in PyTorch.
  explicit AccumulateGrad(Tensor variable);

  std::string name() const override { return "AccumulateGrad"; }
  // Runs the leaf's tensor hooks, read from the leaf each time (hooks registered after this
  // node was made are seen).
  variable_list call_tensor_pre_hooks(variable_list grads) override;
  const Tensor& variable() const noexcept { return variable_; }

 protected:
  variable_list apply(variable_list&& grads) override;

 private:
  Tensor variable_;
};

}  // namespace tg::autograd
