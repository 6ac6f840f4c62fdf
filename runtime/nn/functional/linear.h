// nn::functional linear, bilinear and flatten, as LibTorch's.
#pragma once

#include "nn/functional/optional_tensor.h"
#include "nn/options/linear.h"
#include "tensorgen/ops.h"

namespace tg::nn::functional {

inline Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias = {}) {
  return tg::linear(input, weight, detail::optional_tensor(bias));
}

// y[..., o] = sum_ij input1[..., i] weight[o, i, j] input2[..., j] + bias[o].
Tensor bilinear(const Tensor& input1, const Tensor& input2, const Tensor& weight, const Tensor& bias = {});

}  // namespace tg::nn::functional
