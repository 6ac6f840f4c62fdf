// The CUDA host loops of the pointwise kernel families (pointwise_math_loops.h): each builds
// its operands with ElementwiseLaunch, as cuda/pointwise.cpp does, and runs a launcher of
// pointwise_math_ops.h. The per-operator native:: kernels that call these are generated
// (PointwiseKernelsCUDA.cpp).
#include "cuda/elementwise_host.h"
#include "cuda/pointwise_math_ops.h"
#include "meta/common_meta.h"
#include "pointwise_math_loops.h"

namespace tg::pointwise_math {

void float_unary_out_cuda(FloatUnaryOp op, const Tensor& self, const Tensor& out) {
  const ScalarType dtype = cuda::kernel_dtype(out.scalar_type(), out, {&self});
  cuda::ElementwiseLaunch launch(float_unary_name(op), out, dtype, {{self, dtype}});
  cuda::launch_float_unary(op, dtype, launch.args());
  launch.finish();
}

void math_binary_out_cuda(MathBinaryOp op, const Tensor& self, const Tensor& other, const Tensor& out) {
  const ScalarType dtype = cuda::kernel_dtype(out.scalar_type(), out, {&self, &other});
  cuda::ElementwiseLaunch launch(math_binary_name(op), out, dtype, {{self, dtype}, {other, dtype}});
  cuda::launch_math_binary(op, dtype, launch.args());
  launch.finish();
}

void unary_out_cuda(UnaryOp op, const Tensor& self, const Tensor& out) {
  const ScalarType dtype = cuda::kernel_dtype(out.scalar_type(), out, {&self});
  cuda::ElementwiseLaunch launch(unary_name(op), out, dtype, {{self, dtype}});
  cuda::launch_unary(op, dtype, launch.args());
  launch.finish();
}

void binary_out_cuda(BinaryOp op, const Tensor& self, const Tensor& other, const Scalar& alpha, const Tensor& out) {
  const ScalarType dtype = cuda::kernel_dtype(out.scalar_type(), out, {&self, &other});
  cuda::ElementwiseLaunch launch(binary_name(op), out, dtype, {{self, dtype}, {other, dtype}});
  cuda::launch_binary(op, dtype, launch.args(), cuda::scalar_value(alpha));
  launch.finish();
}

void binary_out_cuda(BinaryOp op, const Tensor& self, const Tensor& other, const Tensor& out) {
  binary_out_cuda(op, self, other, Scalar(1), out);
}

void compare_out_cuda(CompareOp op, const Tensor& self, const Tensor& other, const Tensor& out) {
  const ScalarType dtype = cuda::kernel_dtype(result_type(self, other), out, {&self, &other});
  cuda::ElementwiseLaunch launch(compare_name(op), out, kBool, {{self, dtype}, {other, dtype}});
  cuda::launch_compare(op, dtype, launch.args());
  launch.finish();
}

}  // namespace tg::pointwise_math
