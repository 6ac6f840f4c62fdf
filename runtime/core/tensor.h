// tg::Tensor: TensorBase plus the operator methods, generated from the schemas into
// TensorBody.h. See Note [Tensor and TensorBase] in docs/architecture.md.
#pragma once

#include "TensorBody.h"

namespace tg {

// A new contiguous tensor with uninitialised memory from the device's allocator.
Tensor make_empty_tensor(IntArrayRef sizes, ScalarType dtype, Device device);

}  // namespace tg
