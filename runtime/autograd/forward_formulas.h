// Helpers that tangent (forward-mode) formulas in the schemas call, as PyTorch's
// FunctionsManual jvp functions. Each returns the tangent of one output given primals (_p)
// and tangents (_t); undefined optional tangents mean "no such input".
#pragma once

#include <optional>

#include "core/array_ref.h"
#include "core/tensor.h"

namespace tg::autograd {

// t summed over `dim` (all dims when dim is absent or empty), keeping them when keepdim.
Tensor sum_over(const Tensor& t, OptionalIntArrayRef dim, bool keepdim);

// Tangent of mse_loss(self, target, reduction): reduce(2 (self - target) (self_t - target_t)).
Tensor mse_loss_jvp(const Tensor& self, const Tensor& self_t, const Tensor& target, const Tensor& target_t,
                    int64_t reduction);

// Tangent of native_layer_norm's output from its saved mean and rstd: with x̂ = (x - mean) rstd
// over the normalized (trailing) dims and dx = input_t,
//   dx̂ = rstd (dx - mean(dx)) - x̂ mean(x̂ rstd (dx - mean(dx)))
//   d out = dx̂ w + x̂ w_t + b_t.
Tensor layer_norm_jvp(const Tensor& input, const Tensor& input_t, const std::optional<Tensor>& weight,
                      const std::optional<Tensor>& weight_t, const std::optional<Tensor>& bias_t,
                      const Tensor& mean, const Tensor& rstd, IntArrayRef normalized_shape);

}  // namespace tg::autograd
