#include "optim/clip_grad.h"

#include <cmath>
#include <limits>

#include "autograd/grad_mode.h"
#include "core/error.h"
#include "tensorgen/ops.h"

namespace tg::nn::utils {

double clip_grad_norm_(const std::vector<Tensor>& parameters, double max_norm, double norm_type,
                       bool error_if_nonfinite) {
  NoGradGuard no_grad;
  TG_CHECK_VALUE(norm_type > 0, "[clip_grad_norm_] expected a positive norm_type (or infinity), got ", norm_type);
  std::vector<Tensor> grads;
  for (const Tensor& p : parameters) {
    if (p.defined() && p.grad().defined()) grads.push_back(p.grad());
  }
  if (grads.empty()) return 0.0;
  double total = 0;
  if (std::isinf(norm_type)) {
    for (const Tensor& g : grads) {
      if (g.numel() == 0) continue;
      const double m = g.abs().amax().item<double>();
      // NaN must win, as amax's does; std::max would keep whichever came first.
      total = std::isnan(m) || std::isnan(total) ? std::numeric_limits<double>::quiet_NaN() : std::max(total, m);
    }
  } else {
    for (const Tensor& g : grads) total += g.to(kDouble).abs().pow(norm_type).sum().item<double>();
    total = std::pow(total, 1.0 / norm_type);
  }
  if (error_if_nonfinite && !std::isfinite(total)) {
    TG_THROW(ValueError, "[clip_grad_norm_] The total norm of order ", norm_type, " for gradients from `parameters` ",
             "is non-finite, so it cannot be clipped. To disable this error and scale the gradients by the non-finite ",
             "norm anyway, set `error_if_nonfinite=false`");
  }
  const double clip_coef = max_norm / (total + 1e-6);
  if (clip_coef < 1 || std::isnan(clip_coef)) {
    for (Tensor& g : grads) g.mul_(clip_coef);
  }
  return total;
}

double clip_grad_norm_(std::initializer_list<Tensor> parameters, double max_norm, double norm_type,
                       bool error_if_nonfinite) {
  return clip_grad_norm_(std::vector<Tensor>(parameters), max_norm, norm_type, error_if_nonfinite);
}

double clip_grad_norm_(const Tensor& parameter, double max_norm, double norm_type, bool error_if_nonfinite) {
  return clip_grad_norm_(std::vector<Tensor>{parameter}, max_norm, norm_type, error_if_nonfinite);
}

void clip_grad_value_(const std::vector<Tensor>& parameters, double clip_value) {
  NoGradGuard no_grad;
  for (const Tensor& p : parameters) {
    if (p.defined() && p.grad().defined()) p.grad().clamp_(-clip_value, clip_value);
  }
}

void clip_grad_value_(std::initializer_list<Tensor> parameters, double clip_value) {
  clip_grad_value_(std::vector<Tensor>(parameters), clip_value);
}

void clip_grad_value_(const Tensor& parameter, double clip_value) {
  clip_grad_value_(std::vector<Tensor>{parameter}, clip_value);
}

}  // namespace tg::nn::utils
