// nn::functional conv_transpose1d/2d/3d with LibTorch's ConvTransposeFuncOptions: weight
// [in_channels, out_channels / groups, k...].
#pragma once

#include "nn/functional/optional_tensor.h"
#include "nn/options/conv_transpose.h"
#include "tensorgen/ops.h"

namespace tg::nn::functional {

inline Tensor conv_transpose1d(const Tensor& input, const Tensor& weight,
                               const ConvTranspose1dFuncOptions& options = {}) {
  return tg::conv_transpose1d(input, weight, detail::optional_tensor(options.bias()), options.stride(),
                              options.padding(), options.output_padding(), options.groups(), options.dilation());
}

inline Tensor conv_transpose2d(const Tensor& input, const Tensor& weight,
                               const ConvTranspose2dFuncOptions& options = {}) {
  return tg::conv_transpose2d(input, weight, detail::optional_tensor(options.bias()), options.stride(),
                              options.padding(), options.output_padding(), options.groups(), options.dilation());
}

inline Tensor conv_transpose3d(const Tensor& input, const Tensor& weight,
                               const ConvTranspose3dFuncOptions& options = {}) {
  return tg::conv_transpose3d(input, weight, detail::optional_tensor(options.bias()), options.stride(),
                              options.padding(), options.output_padding(), options.groups(), options.dilation());
}

}  // namespace tg::nn::functional
