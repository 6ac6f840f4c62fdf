// The CPU loop of the `unary` kernel family (schemas/pointwise.yaml; Note [Kernels declared in
// the schema], codegen/kernel_families.py). Like the compare and binary families' loops it is
// a template on the operator: an operator with `vectorized: True` runs its formula on
// cpu::Vectorized for contiguous float tensors (cpu/vectorized_loops.h), which needs the
// formula compiled into the vector loop. The generated PointwiseKernelsCPU_unary.cpp
// instantiates it once per operator.
#pragma once

#include "PointwiseKernels.h"
#include "cpu/loops.h"
#include "cpu/vectorized_loops.h"
#include "dtype_dispatch.h"

namespace tg::pointwise_math {

template <UnaryOp op>
void unary_out_cpu(const Tensor& self, const Tensor& out) {
  cpu::LaunchesOnly launches_only;  // see Note [Launch replay]
  const auto run = [&](auto tag) {
    using S = typename decltype(tag)::type;
    using T = opmath_t<S>;
    if constexpr (unary_has_vector_path(op)) {
      cpu::vectorized_unary_kernel<S>(out, self, [](auto x) { return math::unary_vectorized(op, x); });
    } else {
      cpu::unary_kernel<S>(out, self, [](T x) { return math::unary(op, x); });
    }
  };
  if constexpr (unary_floating_only(op)) {
    dispatch_dtype<kFloatingTypes>(out.scalar_type(), unary_name(op), run);
  } else {
    dispatch_dtype<kNumericTypes>(out.scalar_type(), unary_name(op), run);
  }
}

}  // namespace tg::pointwise_math
