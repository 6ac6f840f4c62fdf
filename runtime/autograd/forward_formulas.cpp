#include "autograd/forward_formulas.h"

#include <vector>

#include "Functions.h"
#include "TensorMethods.h"
#include "core/reduction.h"
#include "ops/tensor_operators.h"

namespace tg::autograd {

Tensor sum_over(const Tensor& t, OptionalIntArrayRef dim, bool keepdim) {
  if (!dim.has_value() || dim->empty()) {
    if (!keepdim) return t.sum();
    std::vector<int64_t> all(static_cast<size_t>(t.dim()));
    for (int64_t d = 0; d < t.dim(); ++d) all[static_cast<size_t>(d)] = d;
    return t.sum(all, true);
  }
  return t.sum(*dim, keepdim);
}

Tensor mse_loss_jvp(const Tensor& self, const Tensor& self_t, const Tensor& target, const Tensor& target_t,
                    int64_t reduction) {
  Tensor pointwise = 2 * (self - target) * (self_t - target_t);
  if (reduction == Reduction::Mean) return pointwise.mean();
  if (reduction == Reduction::Sum) return pointwise.sum();
  return pointwise;
}

Tensor layer_norm_jvp(const Tensor& input, const Tensor& input_t, const std::optional<Tensor>& weight,
                      const std::optional<Tensor>& weight_t, const std::optional<Tensor>& bias_t,
                      const Tensor& mean, const Tensor& rstd, IntArrayRef normalized_shape) {
  const int64_t axis = input.dim() - static_cast<int64_t>(normalized_shape.size());
  std::vector<int64_t> dims;
  for (int64_t d = axis; d < input.dim(); ++d) dims.push_back(d);
  // mean and rstd hold one value per normalized row; give them input's rank for broadcasting.
  std::vector<int64_t> stat_shape(input.sizes().begin(), input.sizes().begin() + axis);
  stat_shape.resize(static_cast<size_t>(input.dim()), 1);
  Tensor m = mean.reshape(stat_shape), r = rstd.reshape(stat_shape);
  Tensor x_hat = (input - m) * r;
  Tensor centered = input_t - input_t.mean(dims, true);
  Tensor dx_hat = r * centered - x_hat * (x_hat * r * centered).mean(dims, true);
  Tensor out = dx_hat;
  if (weight && weight->defined()) out = out * *weight;
  if (weight_t && weight_t->defined()) out = out + x_hat * *weight_t;
  if (bias_t && bias_t->defined()) out = out + *bias_t;
  return out;
}

}  // namespace tg::autograd
