// norm (p-norms over all or some dims) and the logical reductions all/any, written with
// public operators. norm.ScalarOpt_dim is CompositeExplicitAutograd so that its gradient is
// norm_backward (zero where the norm is zero, as in PyTorch, where the composition's
// gradient would be 0/0); all/any are CompositeImplicitAutograd and give bool tensors.
#include <cmath>
#include <limits>

#include "NativeFunctions.h"
#include "tensorgen/ops.h"

namespace tg::native {

Tensor norm(const Tensor& self, const Scalar& p) {
  return tg::norm(self, std::optional<Scalar>(p), IntArrayRef{}, false);
}

Tensor norm_dim(const Tensor& self, const std::optional<Scalar>& p, IntArrayRef dim, bool keepdim) {
  TG_CHECK_TYPE(is_floating_type(self.scalar_type()),
                "[norm] norm(): input dtype should be either floating point or complex. Got ", self.scalar_type(),
                " instead.");
  const double order = p ? p->to<double>() : 2.0;
  const Tensor magnitude = self.abs();
  if (std::isinf(order)) return order > 0 ? magnitude.amax(dim, keepdim) : magnitude.amin(dim, keepdim);
  if (order == 0) return self.ne(0).to(self.scalar_type()).sum(dim, keepdim);
  if (order == 1) return magnitude.sum(dim, keepdim);
  if (order == 2) return (self * self).sum(dim, keepdim).sqrt();
  return magnitude.pow(order).sum(dim, keepdim).pow(1.0 / order);
}

Tensor all(const Tensor& self) { return self.eq(0).sum().eq(0); }

Tensor all_dim(const Tensor& self, int64_t dim, bool keepdim) {
  return self.eq(0).sum(IntArrayRef{dim}, keepdim).eq(0);
}

Tensor any(const Tensor& self) { return self.ne(0).sum().gt(0); }

Tensor any_dim(const Tensor& self, int64_t dim, bool keepdim) {
  return self.ne(0).sum(IntArrayRef{dim}, keepdim).gt(0);
}

}  // namespace tg::native
