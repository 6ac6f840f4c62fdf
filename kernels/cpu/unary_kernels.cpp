// The CPU kernel of clamp, the one unary operator of schemas/pointwise.yaml whose kernel is
// not generated: its bounds are Scalar arguments, which no kernel family takes. The others
// (neg, abs, exp, ...) are declared with `kernel:` (cpu/unary_family_loop.h).
#include "NativeFunctions.h"
#include "cpu/loops.h"
#include "dtype_dispatch.h"
#include "scalar_math.h"

namespace tg {

// min(max(x, lo), hi): hi wins when lo > hi; a NaN input or bound gives NaN.
void native::clamp_out_cpu(const Tensor& self, const std::optional<Scalar>& min, const std::optional<Scalar>& max,
                           const Tensor& out) {
  cpu::LaunchesOnly launches_only;  // see Note [Launch replay]
  TG_DISPATCH_NUMERIC_TYPES(out.scalar_type(), "clamp", [&] {
    using T = opmath_t<scalar_t>;
    const std::optional<T> lo = min ? std::optional<T>(min->to<T>()) : std::nullopt;
    const std::optional<T> hi = max ? std::optional<T>(max->to<T>()) : std::nullopt;
    cpu::unary_kernel<scalar_t>(out, self, [lo, hi](T x) {
      if (lo) x = math::max_propagate_nan(x, *lo);
      if (hi) x = math::min_propagate_nan(x, *hi);
      return x;
    });
  });
}

}  // namespace tg
