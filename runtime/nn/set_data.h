// nn::detail::set_data(target, source): makes `target` (every handle to its TensorImpl) hold
// `source`'s data, dtype, shape and device, keeping its autograd identity (requires_grad, grad,
// hooks), as LibTorch's Variable::set_data. Module::to and Cloneable use it so that the tensors
// a module keeps as members (and an optimizer made earlier) see the change. Tensor::set_data,
// the public form, refuses a device or dtype change; hence this function of the frontend's own.
#pragma once

#include "core/tensor.h"

namespace tg::nn::detail {

void set_data(const Tensor& target, const Tensor& source);

}  // namespace tg::nn::detail
