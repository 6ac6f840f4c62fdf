#include "core/tensor.h"

#include "core/checked_math.h"
#include "core/scalar_type_check.h"

namespace tg {

Tensor make_empty_tensor(IntArrayRef sizes, ScalarType dtype, Device device) {
  for (int64_t s : sizes) {
    TG_CHECK_VALUE(s >= 0, "[empty] sizes must be non-negative, got ", sizes);
  }
  check_scalar_type("empty", dtype);
  Storage storage = make_storage(checked_nbytes("empty", sizes, element_size(dtype)), device);
  return Tensor(make_intrusive<TensorImpl>(std::move(storage), dtype, sizes));
}

}  // namespace tg
