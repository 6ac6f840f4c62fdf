// The CPU loop of the `compare` kernel family (eq ... ge of schemas/pointwise.yaml; Note
// [Kernels declared in the schema], codegen/kernel_families.py): the comparison computes in
// the operands' result type and writes bool, or, in place, the result converted to self's
// dtype. A template on the operator, as the hand-written kernels were, so that the
// comparison is compiled into the loop; the generated PointwiseKernelsCPU_compare.cpp
// instantiates it once per operator.
#pragma once

#include "PointwiseKernels.h"
#include "cpu/loops.h"
#include "dtype_dispatch.h"
#include "meta/common_meta.h"

namespace tg::pointwise_math {

template <CompareOp op>
void compare_out_cpu(const Tensor& self, const Tensor& other, const Tensor& out) {
  cpu::LaunchesOnly launches_only;  // see Note [Launch replay]
  TG_DISPATCH_ALL_TYPES(result_type(self, other), compare_name(op), [&] {
    using T = opmath_t<scalar_t>;
    cpu::elementwise_kernel(out, [](T x, T y) -> bool { return math::compare(op, x, y); }, self, other);
  });
}

}  // namespace tg::pointwise_math
