// The CPU loops of the pointwise kernel families (pointwise_math_loops.h): one per family,
// the operator a run-time enum whose formula switch (generated PointwiseKernels.h) is shared
// with CUDA. The per-operator native:: kernels that call these are generated
// (PointwiseKernels.cpp).
#include "cpu/loops.h"
#include "dtype_dispatch.h"
#include "pointwise_math_loops.h"

namespace tg::pointwise_math {

void float_unary_out_cpu(FloatUnaryOp op, const Tensor& self, const Tensor& out) {
  cpu::LaunchesOnly launches_only;  // see Note [Launch replay]
  TG_DISPATCH_FLOATING_TYPES(out.scalar_type(), float_unary_name(op), [&] {
    using T = opmath_t<scalar_t>;
    cpu::unary_kernel<scalar_t>(out, self, [op](T x) { return math::float_unary(op, x); });
  });
}

void math_binary_out_cpu(MathBinaryOp op, const Tensor& self, const Tensor& other, const Tensor& out) {
  cpu::LaunchesOnly launches_only;  // see Note [Launch replay]
  const auto run = [&](auto tag) {
    using S = typename decltype(tag)::type;
    using T = opmath_t<S>;
    cpu::binary_kernel<S>(out, self, other, [op](T x, T y) { return math::math_binary(op, x, y); });
  };
  if (math_binary_floating_only(op)) {
    dispatch_dtype<kFloatingTypes>(out.scalar_type(), math_binary_name(op), run);
  } else {
    dispatch_dtype<kAllTypes>(out.scalar_type(), math_binary_name(op), run);
  }
}

}  // namespace tg::pointwise_math
