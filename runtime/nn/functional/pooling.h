// nn::functional pooling with LibTorch's options. The 1-d forms run the 2-d operators on a
// height of 1; adaptive average pooling uses avg_pool2d when the sizes divide, else averages
// each output cell's window. See Note [Adaptive pooling windows].
#pragma once

#include "nn/options/pooling.h"
#include "tensorgen/ops.h"

namespace tg::nn::functional {

inline Tensor max_pool2d(const Tensor& input, const MaxPool2dFuncOptions& options) {
  return tg::max_pool2d(input, options.kernel_size(), options.stride(), options.padding(), options.dilation(),
                        options.ceil_mode());
}

inline Tensor avg_pool2d(const Tensor& input, const AvgPool2dFuncOptions& options) {
  return tg::avg_pool2d(input, options.kernel_size(), options.stride(), options.padding(), options.ceil_mode(),
                        options.count_include_pad(), options.divisor_override());
}

Tensor max_pool1d(const Tensor& input, const MaxPool1dFuncOptions& options);
Tensor avg_pool1d(const Tensor& input, const AvgPool1dFuncOptions& options);
Tensor adaptive_avg_pool2d(const Tensor& input, const AdaptiveAvgPool2dFuncOptions& options);
Tensor adaptive_avg_pool1d(const Tensor& input, const AdaptiveAvgPool1dFuncOptions& options);

}  // namespace tg::nn::functional
