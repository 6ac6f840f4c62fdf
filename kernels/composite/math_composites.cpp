// logsumexp and clamp with tensor bounds as compositions (schemas/einsum.yaml,
// schemas/pointwise_math.yaml): autograd, vmap and backends come from amax, exp, sum, log and
// maximum/minimum.
#include <limits>

#include "NativeFunctions.h"
#include "tensorgen/ops.h"

namespace tg::native {

// amax + log(sum(exp(self - amax))): exp never overflows. An infinite amax is replaced by 0
// before the subtraction (as LibTorch does), so a slice of all -inf gives log(0) = -inf and
// one with +inf gives +inf instead of NaN. The gradient through amax cancels out (the
// softmax weights sum to one).
Tensor logsumexp(const Tensor& self, IntArrayRef dim, bool keepdim) {
  const Tensor x = is_floating_type(self.scalar_type()) ? self : self.to(default_dtype());
  if (x.numel() == 0) return tg::sum(x.exp(), dim, keepdim).log();
  const Tensor max = tg::amax(x, dim, /*keepdim=*/true);
  const Tensor shift = max.masked_fill(max.abs() == std::numeric_limits<double>::infinity(), 0);
  Tensor result = tg::sum((x - shift).exp(), dim, /*keepdim=*/true).log() + shift;
  return keepdim ? result : tg::sum(result, dim, /*keepdim=*/false);
}

Tensor clamp_tensor(const Tensor& self, const std::optional<Tensor>& min, const std::optional<Tensor>& max) {
  const bool has_min = min && min->defined(), has_max = max && max->defined();
  TG_CHECK_VALUE(has_min || has_max, "[clamp] At least one of 'min' or 'max' must not be None");
  Tensor result = has_min ? tg::maximum(self, *min) : self;
  if (has_max) result = tg::minimum(result, *max);
  // A copy even with the bounds on the other side of every element, as LibTorch's clamp.
  return result.is_same(self) ? self.clone() : result;
}

}  // namespace tg::native
