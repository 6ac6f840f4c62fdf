// The CPU loop of the `binary` kernel family (add, sub, mul, div, pow of schemas/pointwise.yaml;
// Note [Kernels declared in the schema], codegen/kernel_families.py): out's dtype is the meta
// function's, the operands load converted to its opmath type. A template on the operator, as
// the hand-written kernels were, so that the formula is compiled into the loop (which the
// compiler vectorises, cpu/loops.h); the generated PointwiseKernelsCPU_binary.cpp instantiates
// it once per operator.
#pragma once

#include "PointwiseKernels.h"
#include "cpu/loops.h"
#include "dtype_dispatch.h"

namespace tg::pointwise_math {

// Runs body(TypeTag<S>{}) for out's dtype S, in the operator's dtype class.
template <BinaryOp op, typename Body>
void dispatch_binary(ScalarType dtype, Body&& body) {
  if constexpr (binary_floating_only(op)) {
    dispatch_dtype<kFloatingTypes>(dtype, binary_name(op), body);
  } else if constexpr (binary_numeric_only(op)) {
    dispatch_dtype<kNumericTypes>(dtype, binary_name(op), body);
  } else {
    dispatch_dtype<kAllTypes>(dtype, binary_name(op), body);
  }
}

// mul, div, pow: their formulas do not read alpha.
template <BinaryOp op>
void binary_out_cpu(const Tensor& self, const Tensor& other, const Tensor& out) {
  cpu::LaunchesOnly launches_only;  // see Note [Launch replay]
  dispatch_binary<op>(out.scalar_type(), [&](auto tag) {
    using S = typename decltype(tag)::type;
    using T = opmath_t<S>;
    cpu::binary_kernel<S>(out, self, other, [](T a, T b) { return math::binary(op, a, b, T(1)); });
  });
}

// add, sub: alpha 1 is a constant of the loop (the multiply by 1, exact, folds away), any other
// alpha a captured value.
template <BinaryOp op>
void binary_out_cpu(const Tensor& self, const Tensor& other, const Scalar& alpha, const Tensor& out) {
  cpu::LaunchesOnly launches_only;  // see Note [Launch replay]
  dispatch_binary<op>(out.scalar_type(), [&](auto tag) {
    using S = typename decltype(tag)::type;
    using T = opmath_t<S>;
    const T scale = alpha.to<T>();
    if (scale == T(1)) {
      cpu::binary_kernel<S>(out, self, other, [](T a, T b) { return math::binary(op, a, b, T(1)); });
    } else {
      cpu::binary_kernel<S>(out, self, other, [scale](T a, T b) { return math::binary(op, a, b, scale); });
    }
  });
}

}  // namespace tg::pointwise_math
