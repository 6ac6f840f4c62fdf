// feature_dropout and alpha_dropout as decompositions (schemas/dropout.yaml): a Bernoulli
// keep-mask drawn with rand from the default generator, applied with pointwise operators, so
// the gradient flows through the kept elements only.
#include <cmath>

#include "NativeFunctions.h"
#include "tensorgen/ops.h"

namespace tg::native {

namespace {

void check_probability(const char* op, double p) {
  TG_CHECK_VALUE(p >= 0.0 && p <= 1.0, "[", op, "] dropout probability has to be between 0 and 1, but got ", p);
}

// 1 where an element (or channel) is kept, with probability 1 - p; in input's dtype.
Tensor keep_mask(const Tensor& input, IntArrayRef mask_shape, double p) {
  const Tensor uniform = tg::rand(mask_shape, TensorOptions().dtype(kFloat).device(input.device()));
  return (uniform >= p).to(input.scalar_type());
}

}  // namespace

Tensor feature_dropout(const Tensor& input, double p, bool train) {
  check_probability("feature_dropout", p);
  TG_CHECK_VALUE(input.dim() >= 2, "[feature_dropout] expected an input of shape [N, C, *] (at least 2 dims), got ",
                 input.sizes());
  if (!train || p == 0.0 || input.numel() == 0) return input.clone();
  if (p == 1.0) return input * tg::zeros({}, input.options());
  std::vector<int64_t> mask_shape(static_cast<size_t>(input.dim()), 1);
  mask_shape[0] = input.size(0);
  mask_shape[1] = input.size(1);
  return input * (keep_mask(input, mask_shape, p) / (1.0 - p));
}

// Note [Alpha dropout]: a dropped element is set to alpha' = -scale * alpha of SELU (its
// limit at -inf), then out = a * (x * keep + alpha' * (1 - keep)) + b with
// a = 1 / sqrt((1 - p) * (1 + p * alpha'^2)) and b = -a * alpha' * p keeps a standard normal
// input's mean 0 and variance 1.
Tensor alpha_dropout(const Tensor& input, double p, bool train) {
  check_probability("alpha_dropout", p);
  if (!train || p == 0.0 || input.numel() == 0) return input.clone();
  if (p == 1.0) return input * tg::zeros({}, input.options());
  constexpr double kAlpha = 1.7580993408473766;  // SELU's scale * alpha
  const double a = 1.0 / std::sqrt((kAlpha * kAlpha * p + 1.0) * (1.0 - p));
  const Tensor keep = keep_mask(input, input.sizes(), p);
  // a * (x * keep - kAlpha * (1 - keep)) + a * kAlpha * p, as LibTorch's _dropout_impl.
  return input * (keep * a) + (keep - 1.0) * (kAlpha * a) + kAlpha * a * p;
}

}  // namespace tg::native
