// CPU kernels of the comparisons (eq, ne, lt, le, gt, ge) and of where.
// A comparison computes in the operands' result type and writes bool (or, in place, the
// result converted to self's dtype).
#include <functional>

#include "NativeFunctions.h"
#include "cpu/loops.h"
#include "dtype_dispatch.h"
#include "meta/common_meta.h"

namespace tg {

namespace {

template <typename Compare>
void compare_out(const char* op, const Tensor& self, const Tensor& other, const Tensor& out, Compare compare) {
  cpu::LaunchesOnly launches_only;  // see Note [Launch replay]
  TG_DISPATCH_ALL_TYPES(result_type(self, other), op, [&] {
    using T = opmath_t<scalar_t>;
    cpu::elementwise_kernel(out, [compare](T x, T y) -> bool { return compare(x, y); }, self, other);
  });
}

}  // namespace

void native::eq_out_cpu(const Tensor& self, const Tensor& other, const Tensor& out) {
  compare_out("eq", self, other, out, std::equal_to<>());
}
void native::ne_out_cpu(const Tensor& self, const Tensor& other, const Tensor& out) {
  compare_out("ne", self, other, out, std::not_equal_to<>());
}
void native::lt_out_cpu(const Tensor& self, const Tensor& other, const Tensor& out) {
  compare_out("lt", self, other, out, std::less<>());
}
void native::le_out_cpu(const Tensor& self, const Tensor& other, const Tensor& out) {
  compare_out("le", self, other, out, std::less_equal<>());
}
void native::gt_out_cpu(const Tensor& self, const Tensor& other, const Tensor& out) {
  compare_out("gt", self, other, out, std::greater<>());
}
void native::ge_out_cpu(const Tensor& self, const Tensor& other, const Tensor& out) {
  compare_out("ge", self, other, out, std::greater_equal<>());
}

void native::where_out_cpu(const Tensor& condition, const Tensor& self, const Tensor& other, const Tensor& out) {
  cpu::LaunchesOnly launches_only;  // see Note [Launch replay]
  TG_DISPATCH_ALL_TYPES(out.scalar_type(), "where", [&] {
    cpu::elementwise_kernel(out, [](bool c, scalar_t x, scalar_t y) { return c ? x : y; }, condition, self, other);
  });
}

}  // namespace tg
