// Meta building blocks the operator families share: PyTorch's result type over tensor
// operands, and the metas of the common operator shapes (elementwise binary, comparison,
// unary). Each checks its inputs and returns the output's TensorMeta (ops/structured.h).
#pragma once

#include <initializer_list>

#include "core/tensor.h"
#include "ops/structured.h"

namespace tg {

// The dtype an operation on these tensors computes in (PyTorch's result_type): dimensioned
// tensors rank above zero-dim tensors, which rank above wrapped numbers (Scalars passed as
// tensors); a lower rank only counts when its category (bool < integral < floating) is higher.
ScalarType result_type(std::initializer_list<const Tensor*> operands);
inline ScalarType result_type(const Tensor& a, const Tensor& b) { return result_type({&a, &b}); }

// a op b, elementwise: the broadcast shape, in the result type of a and b.
TensorMeta binary_meta(const char* op, const Tensor& a, const Tensor& b);
// a op b giving bool: the broadcast shape, bool.
TensorMeta comparison_meta(const char* op, const Tensor& a, const Tensor& b);
// op(self) keeping self's shape and dtype.
TensorMeta unary_meta(const char* op, const Tensor& self);
// op(self) for a floating function (exp, log, ...): integral and bool inputs give the
// default dtype, floating ones keep theirs.
TensorMeta unary_float_meta(const char* op, const Tensor& self);

}  // namespace tg
