// Support for structured kernels: one out-kernel plus a meta function serve the functional,
// in-place and out variants of an operator (see docs/adding-an-op.md).
// The meta function computes each output's TensorMeta (shape and dtype) and checks the
// inputs; the generated wrappers then allocate (functional), check (in-place) or resize
// (out) the outputs and call the out-kernel.
// Kernel contract: the outputs a kernel receives are contiguous, of the meta's shape and
// dtype, on the inputs' device. When a user's out tensor is not (another dtype it can be cast
// to, or a non-contiguous layout), the kernel writes into a temporary that is copied back.
#pragma once

#include <string_view>

#include "core/dim_vector.h"
#include "core/tensor.h"

namespace tg {

struct TensorMeta {
  DimVector sizes;
  ScalarType dtype = ScalarType::Undefined;
  // An out= tensor must have exactly `dtype` instead of one it can be cast to: set by the
  // reductions when their dtype= argument is given, as LibTorch's resize_out checks.
  bool exact_out_dtype = false;
};

// Whether a value of type `from` may be written into a tensor of type `to` by an in-place or
// out= operation (PyTorch's canCast: no floating -> integral, no non-bool -> bool).
bool can_cast(ScalarType from, ScalarType to);

namespace structured {

// A new contiguous output for a functional variant.
Tensor allocate_output(const TensorMeta& meta, Device device);

// The tensor an in-place variant's kernel writes to: `self` itself when it is contiguous,
// else a temporary (finish_output copies it back). Checks that the meta's shape equals
// self's (no broadcasting of self) and that its dtype can be cast to self's.
Tensor prepare_inplace(std::string_view op, const Tensor& self, const TensorMeta& meta);

// The tensor an out= variant's kernel writes to. Resizes `out` to the meta's shape when its
// numel differs (an empty out is the usual case), checks its device and that the dtype can be
// cast, and returns `out` itself when it is contiguous with the meta's dtype, else a
// temporary (finish_output copies it back).
Tensor prepare_out(std::string_view op, const Tensor& out, const TensorMeta& meta, Device device);

// Copies the kernel's result into the user's tensor when prepare_* gave a temporary.
void finish_output(const Tensor& user_output, const Tensor& written);

}  // namespace structured

// Checks that every defined tensor argument of an operator is on `device`, except CPU
// zero-dim tensors (wrapped Scalars), which may join any device, as in PyTorch.
void check_same_device(std::string_view op, std::initializer_list<const Tensor*> tensors);
// The device the operator's outputs go to: that of its first tensor that is not a CPU scalar.
Device common_device(std::initializer_list<const Tensor*> tensors);

// Counts one in-place write of each tensor (its version counter, shared with its views), so
// that autograd can tell a saved tensor was modified. The generated backend wrappers call it.
inline void bump_versions(std::initializer_list<const Tensor*> written) {
  for (const Tensor* t : written) t->unsafeGetTensorImpl()->bump_version();
}
// The same for every element of a written Tensor(a!)[] argument.
inline void bump_versions(TensorList written) {
  for (const Tensor& t : written) t.unsafeGetTensorImpl()->bump_version();
}

// For out kernels that are not structured: `result` goes into `out` (resized as below) if its
// dtype can be cast to out's, else tg::TypeError, as structured out= does.
void write_out(std::string_view op, const Tensor& result, const Tensor& out);

// Resizes an out tensor to `sizes`: one that already has them is left alone, strides and all;
// otherwise it becomes contiguous, its storage reallocated only when too small.
void resize_output(const Tensor& t, IntArrayRef sizes);

}  // namespace tg
