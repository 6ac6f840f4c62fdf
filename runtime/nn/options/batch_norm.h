// Options of BatchNorm1d/2d/3d (BatchNormOptions) and F::batch_norm (BatchNormFuncOptions), in
// LibTorch's names and defaults. momentum = nullopt means a cumulative average
// (factor 1 / num_batches_tracked), as LibTorch's.
#pragma once

#include <cstdint>
#include <optional>

#include "core/arg.h"
#include "core/tensor.h"

namespace tg::nn {

struct BatchNormOptions {
  BatchNormOptions(int64_t num_features) : num_features_(num_features) {}  // NOLINT
  TG_ARG(int64_t, num_features);
  TG_ARG(double, eps) = 1e-5;
  TG_ARG(std::optional<double>, momentum) = 0.1;
  TG_ARG(bool, affine) = true;
  TG_ARG(bool, track_running_stats) = true;
};

using BatchNorm1dOptions = BatchNormOptions;
using BatchNorm2dOptions = BatchNormOptions;
using BatchNorm3dOptions = BatchNormOptions;

namespace functional {
struct BatchNormFuncOptions {
  TG_ARG(Tensor, weight);
  TG_ARG(Tensor, bias);
  TG_ARG(bool, training) = false;
  TG_ARG(std::optional<double>, momentum) = 0.1;
  TG_ARG(double, eps) = 1e-5;
};
}  // namespace functional
}  // namespace tg::nn
