// The native:: CUDA kernels of the pointwise operators (schemas/pointwise.yaml): each builds
// its operands with ElementwiseLaunch and runs one of the launchers of pointwise_ops.h. Dtypes
// and results follow the CPU kernels (kernels/cpu/binary_kernels.cpp, unary_kernels.cpp,
// compare_kernels.cpp): `out` has the meta function's dtype, and the inputs are read in the
// dtype the operation computes in.
#include "NativeFunctions.h"
#include "cuda/elementwise_host.h"
#include "cuda/pointwise_ops.h"
#include "meta/common_meta.h"
#include "tensorgen/ops.h"

namespace tg {

namespace {

void binary_out(cuda::BinaryOp op, const char* name, const Tensor& self, const Tensor& other, const Scalar& alpha,
                const Tensor& out) {
  const ScalarType dtype = cuda::kernel_dtype(out.scalar_type(), out, {&self, &other});
  cuda::ElementwiseLaunch launch(name, out, dtype, {{self, dtype}, {other, dtype}});
  cuda::launch_binary(op, dtype, launch.args(), cuda::scalar_value(alpha));
  launch.finish();
}

}  // namespace

void native::add_out_cuda(const Tensor& self, const Tensor& other, const Scalar& alpha, const Tensor& out) {
  binary_out(cuda::BinaryOp::Add, "add", self, other, alpha, out);
}
void native::sub_out_cuda(const Tensor& self, const Tensor& other, const Scalar& alpha, const Tensor& out) {
  binary_out(cuda::BinaryOp::Sub, "sub", self, other, alpha, out);
}
void native::mul_out_cuda(const Tensor& self, const Tensor& other, const Tensor& out) {
  binary_out(cuda::BinaryOp::Mul, "mul", self, other, Scalar(1), out);
}
void native::div_out_cuda(const Tensor& self, const Tensor& other, const Tensor& out) {
  binary_out(cuda::BinaryOp::Div, "div", self, other, Scalar(1), out);
}
void native::pow_out_cuda(const Tensor& self, const Tensor& exponent, const Tensor& out) {
  binary_out(cuda::BinaryOp::Pow, "pow", self, exponent, Scalar(1), out);
}

void native::where_out_cuda(const Tensor& condition, const Tensor& self, const Tensor& other, const Tensor& out) {
  const ScalarType dtype = cuda::kernel_dtype(out.scalar_type(), out, {&self, &other});
  cuda::ElementwiseLaunch launch("where", out, dtype, {{condition, kBool}, {self, dtype}, {other, dtype}});
  cuda::launch_where(dtype, launch.args());
  launch.finish();
}

void native::clamp_out_cuda(const Tensor& self, const std::optional<Scalar>& min, const std::optional<Scalar>& max,
                            const Tensor& out) {
  const ScalarType dtype = cuda::kernel_dtype(out.scalar_type(), out, {&self});
  cuda::ElementwiseLaunch launch("clamp", out, dtype, {{self, dtype}});
  const auto bound = [](const std::optional<Scalar>& s) {
    return s ? std::optional<cuda::ScalarValue>(cuda::scalar_value(*s)) : std::nullopt;
  };
  cuda::launch_clamp(dtype, launch.args(), bound(min), bound(max));
  launch.finish();
}

}  // namespace tg
