// The native:: CUDA kernels of where and clamp, the pointwise operators of
// schemas/pointwise.yaml whose kernels are not generated (the others are declared with
// `kernel:`, cuda/pointwise_math.cpp): each builds its operands with ElementwiseLaunch and runs
// one of the launchers of pointwise_ops.h. Dtypes and results follow the CPU kernels
// (kernels/cpu/unary_kernels.cpp, compare_kernels.cpp): `out` has the meta function's dtype,
// and the inputs are read in the dtype the operation computes in.
#include "NativeFunctions.h"
#include "cuda/elementwise_host.h"
#include "cuda/pointwise_ops.h"

namespace tg {

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
