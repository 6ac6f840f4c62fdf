// CPU kernel of masked_fill_: self[i] = value wherever mask[i] (bool, broadcast to self's
// shape) is true.
#include "NativeFunctions.h"
#include "cpu/loops.h"
#include "dtype_dispatch.h"
#include "shape_utils.h"

namespace tg {

Tensor native::masked_fill_cpu_(const Tensor& self, const Tensor& mask, const Scalar& value) {
  TG_CHECK_TYPE(mask.scalar_type() == kBool, "[masked_fill_] only supports boolean masks, but got mask with dtype ",
                mask.scalar_type());
  TG_CHECK_VALUE(IntArrayRef(infer_broadcast_size(self.sizes(), mask.sizes(), "masked_fill_")) == self.sizes(),
                 "[masked_fill_] ",
                 "mask of shape ", mask.sizes(), " does not broadcast to self's shape ", self.sizes());
  TG_DISPATCH_ALL_TYPES(self.scalar_type(), "masked_fill_", [&] {
    const scalar_t fill = value.to<scalar_t>();
    cpu::elementwise_kernel(self, [fill](scalar_t x, bool masked) { return masked ? fill : x; }, self, mask);
  });
  return self;
}

}  // namespace tg
