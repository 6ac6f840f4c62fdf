// Losses as compositions: nll_loss over any number of dims and cross_entropy_loss over
// log_softmax + nll_loss_forward (CompositeImplicitAutograd), and mse_loss with its backward
// (CompositeExplicitAutograd: their derivatives are in schemas/loss.yaml).
#include "NativeFunctions.h"
#include "core/reduction.h"
#include "ops/structured.h"
#include "tensorgen/ops.h"

namespace tg::native {

namespace {

// [N, C, d1, ..., dk] -> [N * d1 * ... * dk, C]: the class dim moves last, the rest flatten.
Tensor classes_last(const Tensor& self) {
  std::vector<int64_t> order{0};
  for (int64_t d = 2; d < self.dim(); ++d) order.push_back(d);
  order.push_back(1);
  return self.permute(order).reshape({-1, self.size(1)});
}

// The checks of a [N, C, d1, ...] input against its [N, d1, ...] target of class indices.
void check_spatial_target(const char* op, const Tensor& self, const Tensor& target) {
  DimVector expected{self.size(0)};
  for (int64_t d = 2; d < self.dim(); ++d) expected.push_back(self.size(d));
  TG_CHECK_VALUE(target.sizes() == IntArrayRef(expected), "[", op, "] expected target of shape ", IntArrayRef(expected),
                 " for input of shape ", self.sizes(), ", got ", target.sizes());
}

// nll_loss_forward's (loss, total_weight) for an input of any dims >= 1; a None-reduced loss
// has target's shape.
std::tuple<Tensor, Tensor> nll_loss_any_dims(const char* op, const Tensor& self, const Tensor& target,
                                             const std::optional<Tensor>& weight, int64_t reduction,
                                             int64_t ignore_index) {
  TG_CHECK_VALUE(self.dim() >= 1, "[", op, "] expected input with a class dim, got a 0-dim tensor");
  if (self.dim() <= 2) return tg::nll_loss_forward(self, target, weight, reduction, ignore_index);
  check_spatial_target(op, self, target);
  auto [loss, total_weight] =
      tg::nll_loss_forward(classes_last(self), target.reshape({-1}), weight, reduction, ignore_index);
  if (reduction == Reduction::None) loss = loss.view(target.sizes());
  return {loss, total_weight};
}

// A [C] weight shaped to multiply an input whose class dim is class_dim.
Tensor weight_along(const Tensor& weight, const Tensor& self, int64_t class_dim) {
  std::vector<int64_t> shape(static_cast<size_t>(self.dim()), 1);
  shape[static_cast<size_t>(class_dim)] = weight.numel();
  return weight.view(shape);
}

Tensor reduce_loss(const Tensor& loss, int64_t reduction) {
  if (reduction == Reduction::Mean) return loss.mean();
  if (reduction == Reduction::Sum) return loss.sum();
  return loss;
}

// cross_entropy with class probabilities: -sum_c target_c * log_softmax(self)_c (* weight_c).
Tensor cross_entropy_probabilities(const Tensor& log_probs, const Tensor& target, const std::optional<Tensor>& weight,
                                   int64_t reduction, int64_t ignore_index, double label_smoothing,
                                   int64_t class_dim) {
  TG_CHECK_TYPE(is_floating_type(target.scalar_type()), "[cross_entropy] expected a floating target of class ",
                "probabilities for a target of input's shape ", target.sizes(), ", got ", target.scalar_type());
  TG_CHECK_VALUE(ignore_index == -100, "[cross_entropy] ignore_index is not supported for a target of class ",
                 "probabilities, got ignore_index=", ignore_index);
  const int64_t classes = log_probs.size(class_dim);
  Tensor smoothed = label_smoothing > 0 ? target * (1 - label_smoothing) + label_smoothing / classes : target;
  Tensor terms = log_probs * smoothed;
  if (weight && weight->defined()) terms = terms * weight_along(*weight, log_probs, class_dim);
  if (reduction == Reduction::None) return -terms.sum(IntArrayRef(class_dim));
  if (reduction == Reduction::Sum) return -terms.sum();
  // The mean over rows; zero rows or zero classes give 0 / 0 = NaN, as LibTorch does (and an
  // integer numel / classes would divide by zero).
  const int64_t rows = classes == 0 ? 0 : log_probs.numel() / classes;
  return -terms.sum() / rows;
}

}  // namespace

Tensor nll_loss(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight, int64_t reduction,
                int64_t ignore_index) {
  return std::get<0>(nll_loss_any_dims("nll_loss", self, target, weight, reduction, ignore_index));
}

// Note [Label smoothing]
// With smoothing s over C classes, the target distribution is (1 - s) one_hot(t) + s / C, so
// the loss is (1 - s) nll + (s / C) smooth, smooth_i = -sum_c w_c log_softmax(self)_ic. Ignored
// targets contribute 0 to both; Mean divides both by total_weight, the weight of the targets
// kept, as PyTorch does.
Tensor cross_entropy_loss(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight,
                          int64_t reduction, int64_t ignore_index, double label_smoothing) {
  TG_CHECK_VALUE(label_smoothing >= 0.0 && label_smoothing <= 1.0, "[cross_entropy] label_smoothing must be ",
                 "between 0.0 and 1.0, got ", label_smoothing);
  TG_CHECK_VALUE(self.dim() >= 1, "[cross_entropy] expected input with a class dim, got a 0-dim tensor");
  const int64_t class_dim = self.dim() == 1 ? 0 : 1;
  Tensor log_probs = tg::log_softmax(self, class_dim, self.scalar_type());
  if (self.sizes() == target.sizes()) {
    return cross_entropy_probabilities(log_probs, target, weight, reduction, ignore_index, label_smoothing, class_dim);
  }
  auto [nll, total_weight] = nll_loss_any_dims("cross_entropy", log_probs, target, weight, reduction, ignore_index);
  if (label_smoothing == 0.0) return nll;
  Tensor weighted = weight && weight->defined() ? log_probs * weight_along(*weight, log_probs, class_dim) : log_probs;
  Tensor smooth = -weighted.sum(IntArrayRef(class_dim));
  smooth = tg::where(target == ignore_index, tg::zeros_like(smooth), smooth);
  if (reduction == Reduction::Sum) {
    smooth = smooth.sum();
  } else if (reduction == Reduction::Mean) {
    smooth = smooth.sum() / total_weight;
  }
  const int64_t classes = self.size(class_dim);
  return nll * (1 - label_smoothing) + smooth * (label_smoothing / static_cast<double>(classes));
}

Tensor mse_loss(const Tensor& self, const Tensor& target, int64_t reduction) {
  TG_CHECK_VALUE(reduction >= Reduction::None && reduction <= Reduction::Sum, "[mse_loss] reduction must be 0 (None), ",
                 "1 (Mean) or 2 (Sum), got ", reduction);
  Tensor difference = self - target;
  return reduce_loss(difference * difference, reduction);
}

Tensor mse_loss_out(const Tensor& self, const Tensor& target, int64_t reduction, const Tensor& out) {
  write_out("mse_loss", native::mse_loss(self, target, reduction), out);
  return out;
}

// d/dself of mse_loss: 2 (self - target) grad, divided by the element count for Mean.
Tensor mse_loss_backward(const Tensor& grad_output, const Tensor& self, const Tensor& target, int64_t reduction) {
  Tensor difference = self - target;
  const double norm = reduction == Reduction::Mean ? 2.0 / static_cast<double>(difference.numel()) : 2.0;
  return difference * norm * grad_output;
}

}  // namespace tg::native
