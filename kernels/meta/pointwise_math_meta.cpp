// The meta functions of the pointwise kernel families (pointwise_math_loops.h): the floating
// unary functions keep the shape and give integral inputs the default dtype; the binary ones
// keep the operands' result type, as in PyTorch, except that a floating-only operator (atan2)
// gives integral operands the default dtype. The per-operator meta:: functions that call
// these are generated (PointwiseKernels.cpp).
#include "meta/common_meta.h"
#include "pointwise_math_loops.h"

namespace tg::pointwise_math {

TensorMeta float_unary_meta(FloatUnaryOp op, const Tensor& self) {
  return unary_float_meta(float_unary_name(op), self);
}

TensorMeta math_binary_meta(MathBinaryOp op, const Tensor& self, const Tensor& other) {
  TensorMeta meta = binary_meta(math_binary_name(op), self, other);
  if (math_binary_floating_only(op) && !is_floating_type(meta.dtype)) meta.dtype = default_dtype();
  return meta;
}

TensorMeta unary_meta(UnaryOp op, const Tensor& self) {
  return unary_floating_only(op) ? unary_float_meta(unary_name(op), self) : tg::unary_meta(unary_name(op), self);
}

void check_alpha_category(const char* op, ScalarType dtype, const Scalar& alpha) {
  TG_CHECK_TYPE(!alpha.is_boolean() || dtype == kBool, "[", op, "] boolean alpha only supported for boolean results, ",
                "got a ", dtype, " result");
  TG_CHECK_TYPE(is_floating_type(dtype) || alpha.is_integral(/*include_bool=*/true), "[", op,
                "] for integral input tensors, argument alpha must not be a floating point number, got alpha=", alpha,
                " for a ", dtype, " result");
}

TensorMeta compare_meta(CompareOp op, const Tensor& self, const Tensor& other) {
  return comparison_meta(compare_name(op), self, other);
}

}  // namespace tg::pointwise_math
