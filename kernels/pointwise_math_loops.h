// The hand-written loops of the pointwise kernel families (Note [Kernels declared in the
// schema], codegen/kernel_families.py). The generated meta functions and kernels of the
// operators declared with `kernel:` call these with their operator's enum constant; the
// operators, their names and formulas come from the generated PointwiseKernels.h.
#pragma once

#include "PointwiseKernels.h"
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

}  // namespace tg::pointwise_math
