// Options of the loss modules and functions (the same class serves both, as in LibTorch).
#pragma once

#include <cstdint>
#include <type_traits>

#include "core/tensor.h"
#include "core/arg.h"
#include "nn/reduction_kind.h"

namespace tg::nn {

struct MSELossOptions {
  MSELossOptions() = default;
  // L1Loss(tg::kSum): any of kNone, kMean, kSum (LibTorch's TORCH_OPTIONS_CTOR_VARIANT_ARG3).
  template <typename R, typename = std::enable_if_t<std::is_constructible_v<LossReduction, R>>>
  MSELossOptions(R reduction) : reduction_(reduction) {}  // NOLINT
  TG_ARG(LossReduction, reduction) = kMean;
};

struct L1LossOptions {
  L1LossOptions() = default;
  // L1Loss(tg::kSum): any of kNone, kMean, kSum (LibTorch's TORCH_OPTIONS_CTOR_VARIANT_ARG3).
  template <typename R, typename = std::enable_if_t<std::is_constructible_v<LossReduction, R>>>
  L1LossOptions(R reduction) : reduction_(reduction) {}  // NOLINT
  TG_ARG(LossReduction, reduction) = kMean;
};

struct NLLLossOptions {
  TG_ARG(Tensor, weight);
  TG_ARG(int64_t, ignore_index) = -100;
  TG_ARG(LossReduction, reduction) = kMean;
};

struct CrossEntropyLossOptions {
  TG_ARG(Tensor, weight);
  TG_ARG(int64_t, ignore_index) = -100;
  TG_ARG(LossReduction, reduction) = kMean;
  TG_ARG(double, label_smoothing) = 0.0;
};

namespace functional {
using MSELossFuncOptions = MSELossOptions;
using L1LossFuncOptions = L1LossOptions;
using NLLLossFuncOptions = NLLLossOptions;
using CrossEntropyFuncOptions = CrossEntropyLossOptions;
}  // namespace functional
}  // namespace tg::nn
