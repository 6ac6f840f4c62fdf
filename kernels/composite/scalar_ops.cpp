// The Scalar overloads of the pointwise operators (add.Scalar, mul_.Scalar, eq.Scalar, ...).
// Each wraps its Scalar in a zero-dim "wrapped number" tensor and calls the Tensor overload,
// so type promotion sees the Scalar as PyTorch does (int_tensor + 2.5 is float32, not
// float64) and the one structured kernel per operator serves both overloads.
#include "NativeFunctions.h"
#include "tensorgen/ops.h"

namespace tg::native {

// op(self, other, alpha) and self.op_(other, alpha), for operators with an alpha.
#define TG_SCALAR_OVERLOADS_WITH_ALPHA(op)                                               \
  Tensor op##_scalar(const Tensor& self, const Scalar& other, const Scalar& alpha) {     \
    return tg::op(self, wrapped_scalar_tensor(other), alpha);                             \
  }                                                                                      \
  Tensor op##_scalar_(const Tensor& self, const Scalar& other, const Scalar& alpha) {    \
    return self.op##_(wrapped_scalar_tensor(other), alpha);                               \
  }

// op(self, other) and self.op_(other).
#define TG_SCALAR_OVERLOADS(op)                                    \
  Tensor op##_scalar(const Tensor& self, const Scalar& other) {    \
    return tg::op(self, wrapped_scalar_tensor(other));              \
  }                                                                \
  Tensor op##_scalar_(const Tensor& self, const Scalar& other) {   \
    return self.op##_(wrapped_scalar_tensor(other));                \
  }

TG_SCALAR_OVERLOADS_WITH_ALPHA(add)
TG_SCALAR_OVERLOADS_WITH_ALPHA(sub)
TG_SCALAR_OVERLOADS(mul)
TG_SCALAR_OVERLOADS(div)
TG_SCALAR_OVERLOADS(eq)
TG_SCALAR_OVERLOADS(ne)
TG_SCALAR_OVERLOADS(lt)
TG_SCALAR_OVERLOADS(le)
TG_SCALAR_OVERLOADS(gt)
TG_SCALAR_OVERLOADS(ge)

#undef TG_SCALAR_OVERLOADS
#undef TG_SCALAR_OVERLOADS_WITH_ALPHA

// pow's overloads are named after their argument kinds, so they are written out.
namespace {

// LibTorch refuses an integral base with a negative integral Scalar exponent (the result is
// not an integer); a Tensor exponent keeps powi's answer (0, or +-1 for bases +-1), as there.
void check_integer_power(const char* op, const Tensor& self, const Scalar& exponent) {
  TG_CHECK_VALUE(!(is_integral_type(self.scalar_type(), /*include_bool=*/true) &&
                   exponent.is_integral(/*include_bool=*/true) && exponent.toLong() < 0),
                 "[", op, "] Integers to negative integer powers are not allowed: ", self.scalar_type(),
                 " tensor to the power ", exponent);
}

}  // namespace

Tensor pow_tensor_scalar(const Tensor& self, const Scalar& exponent) {
  check_integer_power("pow", self, exponent);
  return tg::pow(self, wrapped_scalar_tensor(exponent));
}

Tensor pow_scalar_(const Tensor& self, const Scalar& exponent) {
  check_integer_power("pow_", self, exponent);
  return self.pow_(wrapped_scalar_tensor(exponent));
}

Tensor pow_scalar_tensor(const Scalar& self, const Tensor& exponent) {
  return tg::pow(wrapped_scalar_tensor(self), exponent);
}

}  // namespace tg::native
