// nn::functional layer_norm and normalize, as LibTorch's.
#pragma once

#include "nn/functional/optional_tensor.h"
#include "nn/options/normalization.h"
#include "tensorgen/ops.h"

namespace tg::nn::functional {

inline Tensor layer_norm(const Tensor& input, const LayerNormFuncOptions& options) {
  return tg::layer_norm(input, options.normalized_shape(), detail::optional_tensor(options.weight()),
                        detail::optional_tensor(options.bias()), options.eps());
}

}  // namespace tg::nn::functional
