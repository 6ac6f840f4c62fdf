// CPU kernel of masked_fill_: self[i] = value wherever mask[i] (bool, broadcast to self's
// shape) is true.
#include "NativeFunctions.h"
#include "cpu/loops.h"
#include "dtype_dispatch.h"
#include "index_rules.h"

namespace tg {

Tensor native::masked_fill_cpu_(const Tensor& self, const Tensor& mask, const Scalar& value) {
  cpu::LaunchesOnly launches_only;  // see Note [Launch replay]
  check_masked_fill(self, mask);
  TG_DISPATCH_ALL_TYPES(self.scalar_type(), "masked_fill_", [&] {
    const scalar_t fill = value.to<scalar_t>();
    cpu::elementwise_kernel(self, [fill](scalar_t x, bool masked) { return masked ? fill : x; }, self, mask);
  });
  return self;
}

}  // namespace tg
