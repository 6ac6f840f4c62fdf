// tg::Tensor: the user-facing tensor handle. Until the generator adds operator methods, it
// is TensorBase under LibTorch's name. See Note [Tensor and TensorBase] in docs/architecture.md.
#pragma once

#include "core/tensor_base.h"

namespace tg {

class Tensor : public TensorBase {
 public:
  using TensorBase::TensorBase;
  Tensor() = default;
  explicit Tensor(const TensorBase& base) : TensorBase(base) {}
};

using TensorList = ArrayRef<Tensor>;

// A new contiguous tensor with uninitialised memory from the device's allocator.
Tensor make_empty_tensor(IntArrayRef sizes, ScalarType dtype, Device device);

}  // namespace tg
