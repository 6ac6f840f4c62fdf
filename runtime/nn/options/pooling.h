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

using MaxPool1dOptions = MaxPoolOptions<1>;
using MaxPool2dOptions = MaxPoolOptions<2>;
using AvgPool1dOptions = AvgPoolOptions<1>;
using AvgPool2dOptions = AvgPoolOptions<2>;
using AdaptiveAvgPool1dOptions = AdaptiveAvgPoolOptions<1>;
using AdaptiveAvgPool2dOptions = AdaptiveAvgPoolOptions<2>;

namespace functional {
using MaxPool1dFuncOptions = MaxPool1dOptions;
using MaxPool2dFuncOptions = MaxPool2dOptions;
using AvgPool1dFuncOptions = AvgPool1dOptions;
using AvgPool2dFuncOptions = AvgPool2dOptions;
using AdaptiveAvgPool1dFuncOptions = AdaptiveAvgPool1dOptions;
using AdaptiveAvgPool2dFuncOptions = AdaptiveAvgPool2dOptions;
}  // namespace functional
}  // namespace tg::nn
