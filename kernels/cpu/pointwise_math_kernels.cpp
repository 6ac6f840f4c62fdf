// CPU kernels of schemas/pointwise_math.yaml: the floating unary functions (sin ... erfinv)
// and the binary ones (atan2, maximum, minimum, fmax, fmin). Each native:: kernel names its
// operator and calls one of two loops; the formulas live in pointwise_math.h, shared with CUDA.
#include "NativeFunctions.h"
#include "cpu/loops.h"
#include "dtype_dispatch.h"
#include "pointwise_math.h"

namespace tg {

namespace {

void float_unary_out(FloatUnaryOp op, const Tensor& self, const Tensor& out) {
  cpu::LaunchesOnly launches_only;  // see Note [Launch replay]
  TG_DISPATCH_FLOATING_TYPES(out.scalar_type(), float_unary_name(op), [&] {
    using T = opmath_t<scalar_t>;
    cpu::unary_kernel<scalar_t>(out, self, [op](T x) { return math::float_unary(op, x); });
  });
}

void math_binary_out(MathBinaryOp op, const Tensor& self, const Tensor& other, const Tensor& out) {
  cpu::LaunchesOnly launches_only;  // see Note [Launch replay]
  const auto run = [&](auto tag) {
    using S = typename decltype(tag)::type;
    using T = opmath_t<S>;
    cpu::binary_kernel<S>(out, self, other, [op](T x, T y) { return math::math_binary(op, x, y); });
  };
  if (op == MathBinaryOp::Atan2) {
    dispatch_dtype<kFloatingTypes>(out.scalar_type(), "atan2", run);
  } else {
    dispatch_dtype<kAllTypes>(out.scalar_type(), math_binary_name(op), run);
  }
}

}  // namespace

void native::sin_out_cpu(const Tensor& self, const Tensor& out) { float_unary_out(FloatUnaryOp::Sin, self, out); }
void native::cos_out_cpu(const Tensor& self, const Tensor& out) { float_unary_out(FloatUnaryOp::Cos, self, out); }
void native::tan_out_cpu(const Tensor& self, const Tensor& out) { float_unary_out(FloatUnaryOp::Tan, self, out); }
void native::asin_out_cpu(const Tensor& self, const Tensor& out) { float_unary_out(FloatUnaryOp::Asin, self, out); }
void native::acos_out_cpu(const Tensor& self, const Tensor& out) { float_unary_out(FloatUnaryOp::Acos, self, out); }
void native::atan_out_cpu(const Tensor& self, const Tensor& out) { float_unary_out(FloatUnaryOp::Atan, self, out); }
void native::sinh_out_cpu(const Tensor& self, const Tensor& out) { float_unary_out(FloatUnaryOp::Sinh, self, out); }
void native::cosh_out_cpu(const Tensor& self, const Tensor& out) { float_unary_out(FloatUnaryOp::Cosh, self, out); }
void native::exp2_out_cpu(const Tensor& self, const Tensor& out) { float_unary_out(FloatUnaryOp::Exp2, self, out); }
void native::expm1_out_cpu(const Tensor& self, const Tensor& out) { float_unary_out(FloatUnaryOp::Expm1, self, out); }
void native::log1p_out_cpu(const Tensor& self, const Tensor& out) { float_unary_out(FloatUnaryOp::Log1p, self, out); }
void native::log2_out_cpu(const Tensor& self, const Tensor& out) { float_unary_out(FloatUnaryOp::Log2, self, out); }
void native::log10_out_cpu(const Tensor& self, const Tensor& out) { float_unary_out(FloatUnaryOp::Log10, self, out); }
void native::erf_out_cpu(const Tensor& self, const Tensor& out) { float_unary_out(FloatUnaryOp::Erf, self, out); }
void native::erfinv_out_cpu(const Tensor& self, const Tensor& out) {
  float_unary_out(FloatUnaryOp::Erfinv, self, out);
}

void native::atan2_out_cpu(const Tensor& self, const Tensor& other, const Tensor& out) {
  math_binary_out(MathBinaryOp::Atan2, self, other, out);
}
void native::maximum_out_cpu(const Tensor& self, const Tensor& other, const Tensor& out) {
  math_binary_out(MathBinaryOp::Maximum, self, other, out);
}
void native::minimum_out_cpu(const Tensor& self, const Tensor& other, const Tensor& out) {
  math_binary_out(MathBinaryOp::Minimum, self, other, out);
}
void native::fmax_out_cpu(const Tensor& self, const Tensor& other, const Tensor& out) {
  math_binary_out(MathBinaryOp::Fmax, self, other, out);
}
void native::fmin_out_cpu(const Tensor& self, const Tensor& other, const Tensor& out) {
  math_binary_out(MathBinaryOp::Fmin, self, other, out);
}

}  // namespace tg
