// nn::functional losses with LibTorch's options (F::cross_entropy(x, y, F::CrossEntropyFuncOptions())).
#pragma once

#include "nn/functional/optional_tensor.h"
#include "nn/options/loss.h"
#include "tensorgen/ops.h"

namespace tg::nn::functional {

inline Tensor mse_loss(const Tensor& input, const Tensor& target, const MSELossFuncOptions& options = {}) {
  return tg::mse_loss(input, target, reduction_value(options.reduction()));
}

Tensor l1_loss(const Tensor& input, const Tensor& target, const L1LossFuncOptions& options = {});

inline Tensor nll_loss(const Tensor& input, const Tensor& target, const NLLLossFuncOptions& options = {}) {
  return tg::nll_loss(input, target, detail::optional_tensor(options.weight()), reduction_value(options.reduction()),
                      options.ignore_index());
}

inline Tensor cross_entropy(const Tensor& input, const Tensor& target, const CrossEntropyFuncOptions& options = {}) {
  return tg::cross_entropy_loss(input, target, detail::optional_tensor(options.weight()),
                                reduction_value(options.reduction()), options.ignore_index(), options.label_smoothing());
}

}  // namespace tg::nn::functional
