// nn::functional conv1d, conv2d and conv3d with LibTorch's ConvFuncOptions.
#pragma once

#include "nn/functional/optional_tensor.h"
#include "nn/options/conv.h"
#include "tensorgen/ops.h"

namespace tg::nn::functional {

inline Tensor conv2d(const Tensor& input, const Tensor& weight, const Conv2dFuncOptions& options = {}) {
  return tg::conv2d(input, weight, detail::optional_tensor(options.bias()), options.stride(), options.padding(),
                    options.dilation(), options.groups());
}

// input [N, C, L] or [C, L]; weight [O, C / groups, K].
Tensor conv1d(const Tensor& input, const Tensor& weight, const Conv1dFuncOptions& options = {});

// input [N, C, D, H, W] or [C, D, H, W]; weight [O, C / groups, kD, kH, kW].
inline Tensor conv3d(const Tensor& input, const Tensor& weight, const Conv3dFuncOptions& options = {}) {
  return tg::conv3d(input, weight, detail::optional_tensor(options.bias()), options.stride(), options.padding(),
                    options.dilation(), options.groups());
}

}  // namespace tg::nn::functional
