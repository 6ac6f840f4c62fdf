// The native:: CUDA kernels of schemas/pointwise_math.yaml: each builds its operands with
// ElementwiseLaunch, as cuda/pointwise.cpp does, and runs a launcher of pointwise_math_ops.h.
#include "NativeFunctions.h"
#include "cuda/elementwise_host.h"
#include "cuda/pointwise_math_ops.h"

namespace tg {

namespace {

void float_unary_out(FloatUnaryOp op, const Tensor& self, const Tensor& out) {
  const ScalarType dtype = cuda::kernel_dtype(out.scalar_type(), out, {&self});
  cuda::ElementwiseLaunch launch(float_unary_name(op), out, dtype, {{self, dtype}});
  cuda::launch_float_unary(op, dtype, launch.args());
  launch.finish();
}

void math_binary_out(MathBinaryOp op, const Tensor& self, const Tensor& other, const Tensor& out) {
  const ScalarType dtype = cuda::kernel_dtype(out.scalar_type(), out, {&self, &other});
  cuda::ElementwiseLaunch launch(math_binary_name(op), out, dtype, {{self, dtype}, {other, dtype}});
  cuda::launch_math_binary(op, dtype, launch.args());
  launch.finish();
}

}  // namespace

void native::sin_out_cuda(const Tensor& self, const Tensor& out) { float_unary_out(FloatUnaryOp::Sin, self, out); }
void native::cos_out_cuda(const Tensor& self, const Tensor& out) { float_unary_out(FloatUnaryOp::Cos, self, out); }
void native::tan_out_cuda(const Tensor& self, const Tensor& out) { float_unary_out(FloatUnaryOp::Tan, self, out); }
void native::asin_out_cuda(const Tensor& self, const Tensor& out) { float_unary_out(FloatUnaryOp::Asin, self, out); }
void native::acos_out_cuda(const Tensor& self, const Tensor& out) { float_unary_out(FloatUnaryOp::Acos, self, out); }
void native::atan_out_cuda(const Tensor& self, const Tensor& out) { float_unary_out(FloatUnaryOp::Atan, self, out); }
void native::sinh_out_cuda(const Tensor& self, const Tensor& out) { float_unary_out(FloatUnaryOp::Sinh, self, out); }
void native::cosh_out_cuda(const Tensor& self, const Tensor& out) { float_unary_out(FloatUnaryOp::Cosh, self, out); }
void native::exp2_out_cuda(const Tensor& self, const Tensor& out) { float_unary_out(FloatUnaryOp::Exp2, self, out); }
void native::expm1_out_cuda(const Tensor& self, const Tensor& out) {
  float_unary_out(FloatUnaryOp::Expm1, self, out);
}
void native::log1p_out_cuda(const Tensor& self, const Tensor& out) {
  float_unary_out(FloatUnaryOp::Log1p, self, out);
}
void native::log2_out_cuda(const Tensor& self, const Tensor& out) { float_unary_out(FloatUnaryOp::Log2, self, out); }
void native::log10_out_cuda(const Tensor& self, const Tensor& out) {
  float_unary_out(FloatUnaryOp::Log10, self, out);
}
void native::erf_out_cuda(const Tensor& self, const Tensor& out) { float_unary_out(FloatUnaryOp::Erf, self, out); }
void native::erfinv_out_cuda(const Tensor& self, const Tensor& out) {
  float_unary_out(FloatUnaryOp::Erfinv, self, out);
}

void native::atan2_out_cuda(const Tensor& self, const Tensor& other, const Tensor& out) {
  math_binary_out(MathBinaryOp::Atan2, self, other, out);
}
void native::maximum_out_cuda(const Tensor& self, const Tensor& other, const Tensor& out) {
  math_binary_out(MathBinaryOp::Maximum, self, other, out);
}
void native::minimum_out_cuda(const Tensor& self, const Tensor& other, const Tensor& out) {
  math_binary_out(MathBinaryOp::Minimum, self, other, out);
}
void native::fmax_out_cuda(const Tensor& self, const Tensor& other, const Tensor& out) {
  math_binary_out(MathBinaryOp::Fmax, self, other, out);
}
void native::fmin_out_cuda(const Tensor& self, const Tensor& other, const Tensor& out) {
  math_binary_out(MathBinaryOp::Fmin, self, other, out);
}

}  // namespace tg
