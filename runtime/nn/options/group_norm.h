// Options of GroupNorm (GroupNormOptions) and F::group_norm (GroupNormFuncOptions), in
// LibTorch's names and defaults.
#pragma once

#include <cstdint>

#include "core/arg.h"
#include "core/tensor.h"

namespace tg::nn {

struct GroupNormOptions {
  GroupNormOptions(int64_t num_groups, int64_t num_channels) : num_groups_(num_groups), num_channels_(num_channels) {}
  TG_ARG(int64_t, num_groups);
  TG_ARG(int64_t, num_channels);
  TG_ARG(double, eps) = 1e-5;
  TG_ARG(bool, affine) = true;
};

namespace functional {
struct GroupNormFuncOptions {
  GroupNormFuncOptions(int64_t num_groups) : num_groups_(num_groups) {}  // NOLINT
  TG_ARG(int64_t, num_groups);
  TG_ARG(Tensor, weight);
  TG_ARG(Tensor, bias);
  TG_ARG(double, eps) = 1e-5;
};
}  // namespace functional
}  // namespace tg::nn
