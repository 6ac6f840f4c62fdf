// Tensor hooks: functions registered on a tensor that see, and may replace, its gradient
// during backward. One TensorHookList is shared by the tensor's AutogradMeta (where
// register_hook and remove_hook edit it) and the node that receives the tensor's gradient
// (which runs it), so removing a hook also affects graphs recorded before the removal.
// Threading: hooks are added and removed while no backward pass runs through the tensor.
#pragma once

#include <functional>
#include <utility>
#include <vector>

#include "core/tensor.h"

namespace tg::autograd {

// Returns a replacement gradient, or an undefined tensor to keep the gradient as it is.
using TensorHook = std::function<Tensor(const Tensor& grad)>;

struct TensorHookList {
  std::vector<std::pair<unsigned, TensorHook>> hooks;  // (id, hook), in registration order
};

// Runs `hooks` in registration order on `grad`, each seeing the previous one's result.
// An undefined gradient is passed through without calling them. A hook that returns a
// gradient of another shape, dtype or device is an error.
Tensor run_tensor_hooks(const TensorHookList& hooks, Tensor grad);

}  // namespace tg::autograd
