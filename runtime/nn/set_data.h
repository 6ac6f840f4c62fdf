// nn::detail::set_data(target, source): makes `target` (every handle to its TensorImpl) hold
// `source`'s data, shape and device, keeping its autograd identity (requires_grad, grad,
// hooks). Module::to and Cloneable use it so that the tensors a module keeps as members see
// the change. A tensor's dtype is fixed in tensorgen's TensorImpl, so a dtype change is a
// tg::Error; a device change is allowed (LibTorch's set_data allows both; Tensor::set_data,
// the public form, refuses a device change as well, hence this function of the frontend's own).
#pragma once

#include "core/tensor.h"

namespace tg::nn::detail {

void set_data(const Tensor& target, const Tensor& source);

}  // namespace tg::nn::detail
