// smooth_l1_loss, binary_cross_entropy and binary_cross_entropy_with_logits as compositions
// of pointwise operators (CompositeImplicitAutograd): their gradients and every backend come
// from the operators they are written with. Formulas as in PyTorch's Loss.cpp.
#include "NativeFunctions.h"
#include "core/reduction.h"
#include "tensorgen/ops.h"

namespace tg::native {

namespace {

void check_reduction(const char* op, int64_t reduction) {
  TG_CHECK_VALUE(reduction >= Reduction::None && reduction <= Reduction::Sum, "[", op,
                 "] reduction must be 0 (None), 1 (Mean) or 2 (Sum), got ", reduction);
}

Tensor reduce(const Tensor& loss, int64_t reduction) {
  if (reduction == Reduction::Mean) return loss.mean();
  if (reduction == Reduction::Sum) return loss.sum();
  return loss;
}

void check_same_size(const char* op, const Tensor& self, const Tensor& target) {
  TG_CHECK_VALUE(self.sizes() == target.sizes(), "[", op, "] Using a target size (", target.sizes(),
                 ") that is different to the input size (", self.sizes(), ") is deprecated. ",
                 "Please ensure they have the same size.");
}

}  // namespace

Tensor smooth_l1_loss(const Tensor& self, const Tensor& target, int64_t reduction, double beta) {
  check_reduction("smooth_l1_loss", reduction);
  TG_CHECK_VALUE(beta >= 0, "[smooth_l1_loss] smooth_l1_loss does not support negative values for beta, got ", beta);
  Tensor distance = (self - target).abs();
  if (beta == 0) return reduce(distance, reduction);  // the L1 loss, without a 0/0 below
  Tensor loss = tg::where(distance < beta, distance * distance * (0.5 / beta), distance - 0.5 * beta);
  return reduce(loss, reduction);
}

Tensor binary_cross_entropy(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight,
                            int64_t reduction) {
  check_reduction("binary_cross_entropy", reduction);
  check_same_size("binary_cross_entropy", self, target);
  TG_CHECK_TYPE(is_floating_type(self.scalar_type()), "[binary_cross_entropy] expected a floating input, got ",
                self.scalar_type());
  // PyTorch clamps each log at -100 so that a probability of exactly 0 or 1 gives a finite loss.
  Tensor log_p = tg::clamp(self.log(), -100.0);
  Tensor log_not_p = tg::clamp((1 - self).log(), -100.0);
  Tensor loss = -(target * log_p + (1 - target) * log_not_p);
  if (weight && weight->defined()) loss = loss * *weight;
  return reduce(loss, reduction);
}

Tensor binary_cross_entropy_with_logits(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight,
                                        const std::optional<Tensor>& pos_weight, int64_t reduction) {
  check_reduction("binary_cross_entropy_with_logits", reduction);
  check_same_size("binary_cross_entropy_with_logits", self, target);
  // log(1 + exp(-x)) = m + log(exp(-m) + exp(-x - m)) with m = max(-x, 0): no overflow for
  // large |x|.
  Tensor shift = tg::clamp(-self, 0.0);
  Tensor log_one_plus_exp = shift + ((-shift).exp() + (-self - shift).exp()).log();
  Tensor loss;
  if (pos_weight && pos_weight->defined()) {
    Tensor log_weight = (*pos_weight - 1) * target + 1;
    loss = (1 - target) * self + log_weight * log_one_plus_exp;
  } else {
    loss = (1 - target) * self + log_one_plus_exp;
  }
  if (weight && weight->defined()) loss = loss * *weight;
  return reduce(loss, reduction);
}

}  // namespace tg::native
