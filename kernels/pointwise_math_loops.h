// The hand-written loops of the pointwise kernel families (Note [Kernels declared in the
// schema], codegen/kernel_families.py). The generated meta functions and kernels of the
// operators declared with `kernel:` call these with their operator's enum constant; the
// operators, their names and formulas come from the generated PointwiseKernels.h.
#pragma once

#include "PointwiseKernels.h"
#include "meta/common_meta.h"
#include "ops/structured.h"

namespace tg::pointwise_math {

// float_unary: the output has self's shape; an integral self gives the default float dtype.
// Runs in the floating dtypes, computing in their opmath type.
TensorMeta float_unary_meta(FloatUnaryOp op, const Tensor& self);
void float_unary_out_cpu(FloatUnaryOp op, const Tensor& self, const Tensor& out);
void float_unary_out_cuda(FloatUnaryOp op, const Tensor& self, const Tensor& out);

// math_binary: the broadcast shape and the operands' result type (the default float dtype
// for integral operands of a floating-only operator). Runs in every dtype, or the floating
// ones (math_binary_floating_only).
TensorMeta math_binary_meta(MathBinaryOp op, const Tensor& self, const Tensor& other);
void math_binary_out_cpu(MathBinaryOp op, const Tensor& self, const Tensor& other, const Tensor& out);
void math_binary_out_cuda(MathBinaryOp op, const Tensor& self, const Tensor& other, const Tensor& out);

// unary (schemas/pointwise.yaml): the output has self's shape and dtype, or the default float
// dtype for an integral self of a floating-only operator. Runs in the numeric dtypes (no
// bool) or the floating ones (unary_floating_only). Its CPU loop is a template
// (cpu/unary_family_loop.h).
TensorMeta unary_meta(UnaryOp op, const Tensor& self);
void unary_out_cuda(UnaryOp op, const Tensor& self, const Tensor& out);

// compare (eq ... ge): the broadcast shape, bool; computed in the operands' result type (every
// dtype). Its CPU loop is a template (cpu/compare_family_loop.h).
TensorMeta compare_meta(CompareOp op, const Tensor& self, const Tensor& other);
void compare_out_cuda(CompareOp op, const Tensor& self, const Tensor& other, const Tensor& out);

// binary (add, sub, mul, div, pow): the broadcast shape and the operands' result type, the
// default float dtype for integral operands of a floating-only operator (div's true
// division); with alpha (add, sub), alpha must fit the result's category. Runs in every dtype,
// the numeric ones (binary_numeric_only: sub, pow) or the floating ones. Its metas are inline,
// as they are on the path of every add (tools/count-op-instructions.sh); its CPU loop is a
// template (cpu/binary_family_loop.h).

// PyTorch's alpha_check: a bool alpha only for a bool result, an integral one for an integral
// result. The errors are out of line, so that the common case does not pay for their frame.
[[gnu::noinline]] void check_alpha_category(const char* op, ScalarType dtype, const Scalar& alpha);

inline void check_alpha(const char* op, ScalarType dtype, const Scalar& alpha) {
  if (is_floating_type(dtype) && !alpha.is_boolean()) return;  // the common case, which both checks pass
  check_alpha_category(op, dtype, alpha);
}

inline TensorMeta binary_meta(BinaryOp op, const Tensor& self, const Tensor& other) {
  TensorMeta meta = tg::binary_meta(binary_name(op), self, other);
  if (binary_floating_only(op) && !is_floating_type(meta.dtype)) meta.dtype = default_dtype();
  return meta;
}

inline TensorMeta binary_meta(BinaryOp op, const Tensor& self, const Tensor& other, const Scalar& alpha) {
  TensorMeta meta = binary_meta(op, self, other);
  check_alpha(binary_name(op), meta.dtype, alpha);
  return meta;
}

void binary_out_cuda(BinaryOp op, const Tensor& self, const Tensor& other, const Tensor& out);
void binary_out_cuda(BinaryOp op, const Tensor& self, const Tensor& other, const Scalar& alpha, const Tensor& out);

}  // namespace tg::pointwise_math
