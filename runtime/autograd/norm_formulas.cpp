// The gradient of norm.ScalarOpt_dim (PyTorch's norm_backward in FunctionsManual.cpp).
#include <cmath>

#include "autograd/formulas.h"
#include "ops/tensor_operators.h"
#include "tensorgen/ops.h"

namespace tg::autograd {

// d ||x||_p / dx = sign(x) |x|^(p-1) / ||x||_p^(p-1); 0 where the norm is 0 (and, for p < 2,
// where x is 0, whose |x|^(p-2) is infinite) so that a zero input has a zero gradient.
// p = +-inf shares the gradient among the elements whose |x| is the extremum; p = 0 has none.
Tensor norm_backward(const Tensor& grad, const Tensor& self, const std::optional<Scalar>& p, const Tensor& result,
                     IntArrayRef dim, bool keepdim) {
  const double order = p ? p->to<double>() : 2.0;
  if (order == 0) return tg::zeros_like(self);
  const Tensor sign = self.gt(0).to(self.scalar_type()) - self.lt(0).to(self.scalar_type());
  if (std::isinf(order)) return amax_amin_backward(grad, self.abs(), result, dim, keepdim) * sign;
  const Tensor restored_grad = sum_backward(grad, self.sizes(), dim, keepdim);
  if (order == 1) return restored_grad * sign;
  const Tensor norm = sum_backward(result, self.sizes(), dim, keepdim);
  Tensor scale = order == 2 ? self / norm : self * self.abs().pow(order - 2) / norm.pow(order - 1);
  const Tensor zero = tg::zeros_like(scale);
  scale = tg::where(norm == 0, zero, scale);
  if (order < 2) scale = tg::where(self == 0, zero, scale);
  return restored_grad * scale;
}

}  // namespace tg::autograd
