// index_put, the functional form of index_put_: the kernels of index_put_ write into a copy of
// self (as LibTorch's index_put does), for every backend.
#include "NativeFunctions.h"
#include "tensorgen/ops.h"

namespace tg::native {

Tensor index_put(const Tensor& self, const std::vector<std::optional<Tensor>>& indices, const Tensor& values,
                 bool accumulate) {
  return self.clone().index_put_(indices, values, accumulate);
}

}  // namespace tg::native
