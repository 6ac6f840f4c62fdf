#include "core/tensor.h"

namespace tg {

Tensor make_empty_tensor(IntArrayRef sizes, ScalarType dtype, Device device) {
  int64_t numel = 1;
  for (int64_t s : sizes) {
    TG_CHECK_VALUE(s >= 0, "[empty] sizes must be non-negative, got ", sizes);
    numel *= s;
  }
  Storage storage = make_storage(static_cast<size_t>(numel) * element_size(dtype), device);
  return Tensor(make_intrusive<TensorImpl>(std::move(storage), dtype, sizes));
}

}  // namespace tg
