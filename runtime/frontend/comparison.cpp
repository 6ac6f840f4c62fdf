#include "frontend/comparison.h"

#include "ops/tensor_operators.h"
#include "tensorgen/ops.h"

namespace tg {

Tensor isclose(const Tensor& self, const Tensor& other, double rtol, double atol, bool equal_nan) {
  TG_CHECK_TYPE(self.scalar_type() == other.scalar_type(), "[isclose] ", self.scalar_type(), " did not match ",
                other.scalar_type());
  TG_CHECK_VALUE(rtol >= 0, "[isclose] rtol must be greater than or equal to zero, but got ", rtol);
  TG_CHECK_VALUE(atol >= 0, "[isclose] atol must be greater than or equal to zero, but got ", atol);
  Tensor exactly_equal = self == other;
  if (self.scalar_type() == kBool) return exactly_equal;
  const Tensor a = is_floating_type(self.scalar_type()) ? self : self.to(kDouble);
  const Tensor b = is_floating_type(other.scalar_type()) ? other : other.to(kDouble);
  Tensor within = (a - b).abs() <= (b.abs() * rtol + atol);
  const Tensor all_true = tg::ones_like(within);
  Tensor close = tg::where(exactly_equal, all_true, within);
  if (equal_nan) close = tg::where((a != a) * (b != b), all_true, close);
  return close;
}

bool allclose(const Tensor& self, const Tensor& other, double rtol, double atol, bool equal_nan) {
  return tg::isclose(self, other, rtol, atol, equal_nan).all().item<bool>();
}

bool equal(const Tensor& self, const Tensor& other) {
  TG_CHECK_VALUE(self.device() == other.device(), "[equal] Expected all tensors to be on the same device, but found ",
                 self.device(), " and ", other.device());
  if (self.sizes() != other.sizes()) return false;
  return (self == other).all().item<bool>();
}

}  // namespace tg
