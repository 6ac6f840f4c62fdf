// Options of the pooling modules and functions (LibTorch uses the same class for both:
// MaxPool2dFuncOptions is MaxPool2dOptions). A stride left unset equals the kernel size.
#pragma once

#include <cstdint>
#include <optional>

#include "core/arg.h"
#include "frontend/expanding_array.h"

namespace tg::nn {

template <size_t D>
struct MaxPoolOptions {
  MaxPoolOptions(ExpandingArray<D> kernel_size) : kernel_size_(kernel_size), stride_(kernel_size) {}  // NOLINT
  TG_ARG(ExpandingArray<D>, kernel_size);
  TG_ARG(ExpandingArray<D>, stride);
  TG_ARG(ExpandingArray<D>, padding) = 0;
  TG_ARG(ExpandingArray<D>, dilation) = 1;
  TG_ARG(bool, ceil_mode) = false;
};

template <size_t D>
struct AvgPoolOptions {
  AvgPoolOptions(ExpandingArray<D> kernel_size) : kernel_size_(kernel_size), stride_(kernel_size) {}  // NOLINT
  TG_ARG(ExpandingArray<D>, kernel_size);
  TG_ARG(ExpandingArray<D>, stride);
  TG_ARG(ExpandingArray<D>, padding) = 0;
  TG_ARG(bool, ceil_mode) = false;
  TG_ARG(bool, count_include_pad) = true;
  TG_ARG(std::optional<int64_t>, divisor_override) = std::nullopt;
};

template <size_t D>
struct AdaptiveAvgPoolOptions {
  AdaptiveAvgPoolOptions(ExpandingArray<D> output_size) : output_size_(output_size) {}  // NOLINT
  TG_ARG(ExpandingArray<D>, output_size);
};

// LibTorch's 2-d and 3-d forms also take None for "the input's size" along a dim; here every
// output size is given.
template <size_t D>
struct AdaptiveMaxPoolOptions {
  AdaptiveMaxPoolOptions(ExpandingArray<D> output_size) : output_size_(output_size) {}  // NOLINT
  TG_ARG(ExpandingArray<D>, output_size);
};

using MaxPool1dOptions = MaxPoolOptions<1>;
using MaxPool2dOptions = MaxPoolOptions<2>;
using MaxPool3dOptions = MaxPoolOptions<3>;
using AvgPool1dOptions = AvgPoolOptions<1>;
using AvgPool2dOptions = AvgPoolOptions<2>;
using AvgPool3dOptions = AvgPoolOptions<3>;
using AdaptiveAvgPool1dOptions = AdaptiveAvgPoolOptions<1>;
using AdaptiveAvgPool2dOptions = AdaptiveAvgPoolOptions<2>;
using AdaptiveAvgPool3dOptions = AdaptiveAvgPoolOptions<3>;
using AdaptiveMaxPool1dOptions = AdaptiveMaxPoolOptions<1>;
using AdaptiveMaxPool2dOptions = AdaptiveMaxPoolOptions<2>;
using AdaptiveMaxPool3dOptions = AdaptiveMaxPoolOptions<3>;

namespace functional {
using MaxPool1dFuncOptions = MaxPool1dOptions;
using MaxPool2dFuncOptions = MaxPool2dOptions;
using MaxPool3dFuncOptions = MaxPool3dOptions;
using AvgPool1dFuncOptions = AvgPool1dOptions;
using AvgPool2dFuncOptions = AvgPool2dOptions;
using AvgPool3dFuncOptions = AvgPool3dOptions;
using AdaptiveAvgPool1dFuncOptions = AdaptiveAvgPool1dOptions;
using AdaptiveAvgPool2dFuncOptions = AdaptiveAvgPool2dOptions;
using AdaptiveAvgPool3dFuncOptions = AdaptiveAvgPool3dOptions;
using AdaptiveMaxPool1dFuncOptions = AdaptiveMaxPool1dOptions;
using AdaptiveMaxPool2dFuncOptions = AdaptiveMaxPool2dOptions;
using AdaptiveMaxPool3dFuncOptions = AdaptiveMaxPool3dOptions;
}  // namespace functional
}  // namespace tg::nn
