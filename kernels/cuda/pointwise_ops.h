// The pointwise operations of the CUDA backend outside the kernel families (pointwise_math_ops.h),
// as the host code (pointwise.cpp, activations.cpp, ...) asks for them: an operation code, the
// dtype it computes in, and the operands as ElementwiseArgs. The .cu files instantiate one
// kernel per operation and dtype; a dtype outside an operation's set raises the same
// NotImplementedError as the CPU kernel ("[where] not implemented for ...; supported: ...").
// Each launch runs on the current stream.
#pragma once

#include <optional>

#include "core/scalar_type.h"
#include "cuda/elementwise_args.h"

namespace tg::cuda {

enum class ActivationOp : uint8_t { Gelu, GeluTanh, Silu };  // formulas: kernels/activation_math.h

// out = where(condition, self, other), in `dtype` (out's); operands: out, condition, self, other.
void launch_where(ScalarType dtype, const ElementwiseArgs& args);

// out = min(max(self, lo), hi) with NaN propagated; a missing bound is not applied.
void launch_clamp(ScalarType dtype, const ElementwiseArgs& args, std::optional<ScalarValue> lo,
                  std::optional<ScalarValue> hi);
// out = f(self) (floating dtypes; names the operator gelu or silu).
void launch_activation(ActivationOp op, ScalarType dtype, const ElementwiseArgs& args);
// out = grad * f'(self); operands: out, grad, self (floating; gelu_backward or silu_backward).
void launch_activation_backward(ActivationOp op, ScalarType dtype, const ElementwiseArgs& args);
// out = self <= threshold ? 0 : grad; operands: out, grad, self. Numeric dtypes (relu's
// derivative).
void launch_threshold_backward(ScalarType dtype, const ElementwiseArgs& args, ScalarValue threshold);
// out = mask ? value : self; operands: out, self, mask (bool). Every dtype (masked_fill_).
void launch_masked_fill(ScalarType dtype, const ElementwiseArgs& args, ScalarValue value);
// out = keep ? x * scale : 0; operands: out, x, keep (bool). Floating dtypes (dropout).
void launch_masked_scale(ScalarType dtype, const ElementwiseArgs& args, double scale);
// out = input converted to out's dtype (any dtype to any dtype).
void launch_copy(ScalarType dtype, const ElementwiseArgs& args);
// out = value (operands: out only).
void launch_fill(ScalarType dtype, const ElementwiseArgs& args, ScalarValue value);

}  // namespace tg::cuda
