// Wrapped numbers: a Scalar as a zero-dim CPU tensor that promotes like a Scalar (the
// `add.Scalar` overloads call `add.Tensor` with one), as PyTorch's wrapped_scalar_tensor.
#pragma once

#include "core/scalar.h"
#include "core/tensor.h"

namespace tg {

// A zero-dim CPU tensor holding `s` in the dtype of its kind (float64, int64 or bool),
// marked as a wrapped number.
Tensor wrapped_scalar_tensor(const Scalar& s);
// A zero-dim tensor holding `s` in `dtype` on `device` (not a wrapped number).
Tensor scalar_tensor(const Scalar& s, ScalarType dtype, Device device = Device(kCPU));

// Writes `s` converted to dtype `t` at `data`.
void store_scalar(void* data, ScalarType t, const Scalar& s);
// Reads the element at `data` of dtype `t` as a Scalar.
Scalar load_scalar(const void* data, ScalarType t);

}  // namespace tg
