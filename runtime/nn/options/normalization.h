// Options of LayerNorm and F::layer_norm, in LibTorch's names and defaults.
#pragma once

#include <cstdint>
#include <vector>

#include "core/tensor.h"
#include "core/arg.h"

namespace tg::nn {

struct LayerNormOptions {
  LayerNormOptions(std::vector<int64_t> normalized_shape) : normalized_shape_(std::move(normalized_shape)) {}  // NOLINT
  TG_ARG(std::vector<int64_t>, normalized_shape);
  TG_ARG(double, eps) = 1e-5;
  TG_ARG(bool, elementwise_affine) = true;
};

namespace functional {
struct LayerNormFuncOptions {
  LayerNormFuncOptions(std::vector<int64_t> normalized_shape) : normalized_shape_(std::move(normalized_shape)) {}  // NOLINT
  TG_ARG(std::vector<int64_t>, normalized_shape);
  TG_ARG(Tensor, weight);
  TG_ARG(Tensor, bias);
  TG_ARG(double, eps) = 1e-5;
};
}  // namespace functional
}  // namespace tg::nn
