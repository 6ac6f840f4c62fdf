// nn::functional pooling with LibTorch's options. The 2-d and 3-d forms call their operators;
// the 1-d forms run the 2-d operators on a height of 1. The _with_indices forms also return
// each maximum's flat index within its input plane, as LibTorch's return_indices does.
#pragma once

#include <tuple>

#include "nn/options/pooling.h"
#include "tensorgen/ops.h"

namespace tg::nn::functional {

inline Tensor max_pool2d(const Tensor& input, const MaxPool2dFuncOptions& options) {
  return tg::max_pool2d(input, options.kernel_size(), options.stride(), options.padding(), options.dilation(),
                        options.ceil_mode());
}

inline std::tuple<Tensor, Tensor> max_pool2d_with_indices(const Tensor& input, const MaxPool2dFuncOptions& options) {
  return tg::max_pool2d_with_indices(input, options.kernel_size(), options.stride(), options.padding(),
                                     options.dilation(), options.ceil_mode());
}

inline Tensor max_pool3d(const Tensor& input, const MaxPool3dFuncOptions& options) {
  return tg::max_pool3d(input, options.kernel_size(), options.stride(), options.padding(), options.dilation(),
                        options.ceil_mode());
}

inline std::tuple<Tensor, Tensor> max_pool3d_with_indices(const Tensor& input, const MaxPool3dFuncOptions& options) {
  return tg::max_pool3d_with_indices(input, options.kernel_size(), options.stride(), options.padding(),
                                     options.dilation(), options.ceil_mode());
}

inline Tensor avg_pool2d(const Tensor& input, const AvgPool2dFuncOptions& options) {
  return tg::avg_pool2d(input, options.kernel_size(), options.stride(), options.padding(), options.ceil_mode(),
                        options.count_include_pad(), options.divisor_override());
}

inline Tensor avg_pool3d(const Tensor& input, const AvgPool3dFuncOptions& options) {
  return tg::avg_pool3d(input, options.kernel_size(), options.stride(), options.padding(), options.ceil_mode(),
                        options.count_include_pad(), options.divisor_override());
}

inline Tensor adaptive_avg_pool1d(const Tensor& input, const AdaptiveAvgPool1dFuncOptions& options) {
  return tg::adaptive_avg_pool1d(input, options.output_size());
}

inline Tensor adaptive_avg_pool2d(const Tensor& input, const AdaptiveAvgPool2dFuncOptions& options) {
  return tg::adaptive_avg_pool2d(input, options.output_size());
}

inline Tensor adaptive_avg_pool3d(const Tensor& input, const AdaptiveAvgPool3dFuncOptions& options) {
  return tg::adaptive_avg_pool3d(input, options.output_size());
}

inline std::tuple<Tensor, Tensor> adaptive_max_pool1d_with_indices(const Tensor& input,
                                                                   const AdaptiveMaxPool1dFuncOptions& options) {
  return tg::adaptive_max_pool1d(input, options.output_size());
}

inline std::tuple<Tensor, Tensor> adaptive_max_pool2d_with_indices(const Tensor& input,
                                                                   const AdaptiveMaxPool2dFuncOptions& options) {
  return tg::adaptive_max_pool2d(input, options.output_size());
}

inline std::tuple<Tensor, Tensor> adaptive_max_pool3d_with_indices(const Tensor& input,
                                                                   const AdaptiveMaxPool3dFuncOptions& options) {
  return tg::adaptive_max_pool3d(input, options.output_size());
}

inline Tensor adaptive_max_pool1d(const Tensor& input, const AdaptiveMaxPool1dFuncOptions& options) {
  return std::get<0>(adaptive_max_pool1d_with_indices(input, options));
}

inline Tensor adaptive_max_pool2d(const Tensor& input, const AdaptiveMaxPool2dFuncOptions& options) {
  return std::get<0>(adaptive_max_pool2d_with_indices(input, options));
}

inline Tensor adaptive_max_pool3d(const Tensor& input, const AdaptiveMaxPool3dFuncOptions& options) {
  return std::get<0>(adaptive_max_pool3d_with_indices(input, options));
}

Tensor max_pool1d(const Tensor& input, const MaxPool1dFuncOptions& options);
std::tuple<Tensor, Tensor> max_pool1d_with_indices(const Tensor& input, const MaxPool1dFuncOptions& options);
Tensor avg_pool1d(const Tensor& input, const AvgPool1dFuncOptions& options);

}  // namespace tg::nn::functional
