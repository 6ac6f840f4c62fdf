// nn::functional batch_norm and group_norm, as LibTorch's: undefined running statistics mean
// none (training then uses the batch's statistics only).
#pragma once

#include "core/error.h"
#include "nn/functional/optional_tensor.h"
#include "nn/options/batch_norm.h"
#include "nn/options/group_norm.h"
#include "tensorgen/ops.h"

namespace tg::nn::functional {

inline Tensor batch_norm(const Tensor& input, const Tensor& running_mean, const Tensor& running_var,
                         const BatchNormFuncOptions& options = {}) {
  TG_CHECK_VALUE(options.momentum().has_value(), "[nn::functional::batch_norm] expected a momentum, got None (a ",
                 "cumulative average needs BatchNorm's num_batches_tracked)");
  return tg::batch_norm(input, detail::optional_tensor(options.weight()), detail::optional_tensor(options.bias()),
                        detail::optional_tensor(running_mean), detail::optional_tensor(running_var),
                        options.training(), *options.momentum(), options.eps(), /*cudnn_enabled=*/true);
}

inline Tensor group_norm(const Tensor& input, const GroupNormFuncOptions& options) {
  return tg::group_norm(input, options.num_groups(), detail::optional_tensor(options.weight()),
                        detail::optional_tensor(options.bias()), options.eps());
}

}  // namespace tg::nn::functional
