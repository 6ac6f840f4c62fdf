// The CPU kernel of where. The comparisons (eq ... ge) are declared with `kernel:` (family
// compare, cpu/compare_family_loop.h).
#include "NativeFunctions.h"
#include "cpu/loops.h"
#include "dtype_dispatch.h"

namespace tg {

void native::where_out_cpu(const Tensor& condition, const Tensor& self, const Tensor& other, const Tensor& out) {
  cpu::LaunchesOnly launches_only;  // see Note [Launch replay]
  TG_DISPATCH_ALL_TYPES(out.scalar_type(), "where", [&] {
    cpu::elementwise_kernel(out, [](bool c, scalar_t x, scalar_t y) { return c ? x : y; }, condition, self, other);
  });
}

}  // namespace tg
