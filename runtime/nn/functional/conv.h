// nn::functional conv1d and conv2d with LibTorch's ConvFuncOptions. conv1d runs conv2d on
// inputs with a height of 1, since there is no conv1d operator yet (docs/porting.md).
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

}  // namespace tg::nn::functional
