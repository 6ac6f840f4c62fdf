// max_pool2d as the values of max_pool2d_with_indices (whose derivative uses the indices).
#include "NativeFunctions.h"
#include "tensorgen/ops.h"

namespace tg::native {

Tensor max_pool2d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                  IntArrayRef dilation, bool ceil_mode) {
  return std::get<0>(tg::max_pool2d_with_indices(self, kernel_size, stride, padding, dilation, ceil_mode));
}

}  // namespace tg::native
