// The launchers of the pointwise kernel families (schemas/pointwise_math.yaml, and the unary,
// comparison and arithmetic operators of schemas/pointwise.yaml) on the CUDA backend: the operator as a run-time code (the generated PointwiseKernels.h), the dtype it
// computes in, and the operands as ElementwiseArgs. A dtype outside the operator's set raises the CPU
// kernel's NotImplementedError. Each launch runs on the current stream.
#pragma once

#include "core/scalar_type.h"
#include "cuda/elementwise_args.h"
#include "PointwiseKernels.h"

namespace tg::cuda {

// out = op(self), floating dtypes; operands: out, self.
void launch_float_unary(FloatUnaryOp op, ScalarType dtype, const ElementwiseArgs& args);
// out = op(self, other); operands: out, self, other. Floating dtypes where
// math_binary_floating_only(op) (atan2), else all.
void launch_math_binary(MathBinaryOp op, ScalarType dtype, const ElementwiseArgs& args);
// out = op(self); operands: out, self. Floating dtypes where unary_floating_only(op), else
// numeric (no bool).
void launch_unary(UnaryOp op, ScalarType dtype, const ElementwiseArgs& args);
// out = op(self, other, alpha) in `dtype` (out's); operands: out, self, other. alpha scales other
// for add and sub (1 for the others). Floating dtypes where binary_floating_only(op) (div),
// numeric where binary_numeric_only(op) (sub, pow), else all.
void launch_binary(BinaryOp op, ScalarType dtype, const ElementwiseArgs& args, ScalarValue alpha);
// out (bool, or self's dtype in place) = op(self, other), compared in `dtype` (their result
// type); operands: out, self, other. Every dtype.
void launch_compare(CompareOp op, ScalarType dtype, const ElementwiseArgs& args);

}  // namespace tg::cuda
