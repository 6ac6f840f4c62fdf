// The Scalar overloads of pow (pow.Tensor_Scalar, pow_.Scalar, pow.Scalar). Each wraps its
// Scalar in a zero-dim "wrapped number" tensor and calls the Tensor overload, so type
// promotion sees the Scalar as PyTorch does (int_tensor ** 2.5 is float32, not float64) and
// the one structured kernel serves both overloads.
#include "NativeFunctions.h"
#include "tensorgen/ops.h"

namespace tg::native {

// pow's Scalar overloads, written out: they refuse an integral base with a negative integral
// exponent first, and are named after their argument kinds. The other operators' Scalar
// overloads are generated from `scalar_overload_of:` (Note [Scalar overloads from the schema],
// codegen/scalar_overloads.py).
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
