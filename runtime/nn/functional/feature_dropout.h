// nn::functional dropout2d, dropout3d (whole channels) and alpha_dropout, as LibTorch's:
// dropout2d takes [N, C, H, W] or unbatched [C, H, W], dropout3d [N, C, D, H, W] or
// [C, D, H, W]. Training defaults to true, as there (alpha_dropout's to false, as there).
#pragma once

#include "core/error.h"
#include "nn/options/dropout.h"
#include "tensorgen/ops.h"

namespace tg::nn::functional {

struct AlphaDropoutFuncOptions {
  TG_ARG(double, p) = 0.5;
  TG_ARG(bool, training) = false;
  TG_ARG(bool, inplace) = false;
};
using Dropout2dFuncOptions = DropoutFuncOptions;
using Dropout3dFuncOptions = DropoutFuncOptions;

namespace detail {
// Channels are dims 0 and 1 of a batched input; an unbatched one gets a batch of 1.
inline Tensor channel_dropout(const char* op, Tensor input, int64_t batched_rank, const DropoutFuncOptions& options) {
  TG_CHECK_VALUE(input.dim() == batched_rank || input.dim() == batched_rank - 1, "[nn::functional::", op,
                 "] expected a ", batched_rank - 1, "-D (unbatched) or ", batched_rank, "-D (batched) input, got ",
                 input.dim(), "-D input of shape ", input.sizes());
  const bool batched = input.dim() == batched_rank;
  Tensor result = tg::feature_dropout(batched ? input : input.unsqueeze(0), options.p(), options.training());
  if (!batched) result = result.squeeze(0);
  return options.inplace() ? input.copy_(result) : result;
}
}  // namespace detail

inline Tensor dropout2d(Tensor input, const Dropout2dFuncOptions& options = {}) {
  return detail::channel_dropout("dropout2d", std::move(input), 4, options);
}

inline Tensor dropout3d(Tensor input, const Dropout3dFuncOptions& options = {}) {
  return detail::channel_dropout("dropout3d", std::move(input), 5, options);
}

inline Tensor alpha_dropout(Tensor input, const AlphaDropoutFuncOptions& options = {}) {
  Tensor result = tg::alpha_dropout(input, options.p(), options.training());
  return options.inplace() ? input.copy_(result) : result;
}

}  // namespace tg::nn::functional
