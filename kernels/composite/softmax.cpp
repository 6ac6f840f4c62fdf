// softmax and log_softmax with an optional dtype: the input is converted first, then the
// underscored operator (the kernel, with the derivative) runs in that dtype.
#include "NativeFunctions.h"
#include "tensorgen/ops.h"

namespace tg::native {

Tensor softmax(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  return tg::_softmax(dtype ? self.to(*dtype) : self, dim, /*half_to_float=*/false);
}

Tensor log_softmax(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  return tg::_log_softmax(dtype ? self.to(*dtype) : self, dim, /*half_to_float=*/false);
}

}  // namespace tg::native
