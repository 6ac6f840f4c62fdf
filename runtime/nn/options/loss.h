// Options of the loss modules and functions (the same class serves both, as in LibTorch).
#pragma once

#include <cstdint>

#include "core/tensor.h"
#include "nn/arg.h"
#include "nn/reduction_kind.h"

namespace tg::nn {

struct MSELossOptions {
  MSELossOptions(LossReduction reduction = kMean) : reduction_(reduction) {}  // NOLINT
  TG_ARG(LossReduction, reduction);
};

struct L1LossOptions {
  L1LossOptions(LossReduction reduction = kMean) : reduction_(reduction) {}  // NOLINT
  TG_ARG(LossReduction, reduction);
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
