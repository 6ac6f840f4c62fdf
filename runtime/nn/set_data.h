// nn::detail::set_data(target, source): makes `target` (every handle to its TensorImpl) hold
// `source`'s data, shape and device, keeping its autograd identity (requires_grad, hooks).
// This is what Module::to and Cloneable need so that the tensors a module keeps as members see
// the change. Uses Tensor::set_data where the core has it (LibTorch's name); otherwise swaps
// storage, shape and backend key, which covers every change but a dtype change.
#pragma once

#include "core/tensor.h"

namespace tg::nn::detail {

// The fallback: same dtype; any device, shape or storage. tg::Error for a dtype change.
void replace_storage(const Tensor& target, const Tensor& source);

template <typename T>
void set_data(T& target, const T& source) {
  if constexpr (requires { target.set_data(source); }) {
    target.set_data(source);
  } else {
    replace_storage(target, source);
  }
}

}  // namespace tg::nn::detail
