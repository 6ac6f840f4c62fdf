#include "autograd/formulas.h"

#include <algorithm>

#include "Functions.h"
#include "TensorMethods.h"
#include "core/wrap_dim.h"
#include "ops/tensor_operators.h"

namespace tg::autograd {

bool any_defined(const variable_list& grads) {
  return std::any_of(grads.begin(), grads.end(), [](const Tensor& g) { return g.defined(); });
}

void materialize_undefined_grads(const Node& node, variable_list& grads) {
  for (size_t i = 0; i < grads.size(); ++i) {
    if (grads[i].defined()) continue;
    const InputMetadata& meta = node.input_metadata(i);
    if (meta.dtype == ScalarType::Undefined) continue;  // a non-differentiable output
    grads[i] = tg::zeros(meta.sizes, TensorOptions().dtype(meta.dtype).device(meta.device));
  }
}

void derivative_not_implemented(std::string_view op, std::string_view reason) {
  TG_THROW(NotImplementedError, "[", op, "] the derivative is not implemented: ", reason);
}

Tensor maybe_multiply(const Tensor& t, const Scalar& s) {
  bool is_one = s.is_floating_point() ? s.toDouble() == 1.0 : s.toLong() == 1;
  return is_one ? t : t * s;
}

Tensor mm_mat2_backward(const Tensor& grad, const Tensor& mat1, IntArrayRef mat2_sizes, IntArrayRef mat2_strides,
                        const Scalar& alpha) {
  const bool column_major =
      mat2_sizes.size() == 2 && mat2_sizes[0] > 1 && mat2_sizes[1] > 1 && mat2_strides[0] == 1 &&
      mat2_strides[1] == mat2_sizes[0];
  if (column_major) return maybe_multiply(grad.t().mm(mat1).t(), alpha);
  return maybe_multiply(mat1.t().mm(grad), alpha);
}

Tensor to_copy_backward(const Tensor& grad, ScalarType self_dtype, Device self_device) {
  return grad.to(TensorOptions().dtype(self_dtype).device(self_device));
}

Tensor permute_backwards(const Tensor& grad, IntArrayRef dims) {
  std::vector<int64_t> inverse(dims.size());
  for (size_t i = 0; i < dims.size(); ++i) {
    inverse[static_cast<size_t>(maybe_wrap_dim(dims[i], static_cast<int64_t>(dims.size()), "permute"))] =
        static_cast<int64_t>(i);
  }
  return grad.permute(inverse);
}

Tensor abs_backward(const Tensor& grad, const Tensor& self) {
  // d|x|/dx = sign(x), and 0 at 0 as in PyTorch.
  Tensor zero = tg::zeros_like(grad);
  return tg::where(self > 0, grad, tg::where(self < 0, -grad, zero));
}

Tensor clamp_backward(const Tensor& grad, const Tensor& self, const std::optional<Scalar>& min,
                      const std::optional<Scalar>& max) {
  Tensor pass = tg::ones_like(self, TensorOptions().dtype(kBool));
  if (min) pass = tg::where(self >= *min, pass, tg::zeros_like(pass));
  if (max) pass = tg::where(self <= *max, pass, tg::zeros_like(pass));
  return tg::where(pass, grad, tg::zeros_like(grad));
}

Tensor pow_backward_self(const Tensor& grad, const Tensor& self, const Tensor& exponent) {
  // exponent * self^(exponent - 1), defined as 0 where exponent == 0 (also at self == 0).
  Tensor d = exponent * tg::pow(self, exponent - 1);
  return grad * tg::where(exponent == 0, tg::zeros_like(d), d);
}

Tensor pow_backward_exponent(const Tensor& grad, const Tensor& self, const Tensor& exponent, const Tensor& result) {
  // result * log(self), defined as 0 where self == 0 and exponent >= 0 (PyTorch's convention).
  Tensor d = result * tg::log(self);
  Tensor zero_base = (self == 0) * (exponent >= 0);
  return grad * tg::where(zero_base, tg::zeros_like(d), d);
}

namespace {

// The reduced dims, wrapped and sorted; all dims when `dim` is None or empty.
std::vector<int64_t> reduced_dims(OptionalIntArrayRef dim, int64_t ndim) {
  std::vector<int64_t> dims;
  if (!dim || dim->empty()) {
    for (int64_t d = 0; d < ndim; ++d) dims.push_back(d);
    return dims;
  }
  for (int64_t d : *dim) dims.push_back(maybe_wrap_dim(d, ndim, "reduction backward"));
  std::sort(dims.begin(), dims.end());
  return dims;
}

Tensor restore_reduced_dims(const Tensor& t, IntArrayRef input_sizes, OptionalIntArrayRef dim, bool keepdim) {
  if (keepdim || input_sizes.empty()) return t;
  Tensor out = t;
  for (int64_t d : reduced_dims(dim, static_cast<int64_t>(input_sizes.size()))) out = out.unsqueeze(d);
  return out;
}

}  // namespace

Tensor sum_backward(const Tensor& grad, IntArrayRef input_sizes, OptionalIntArrayRef dim, bool keepdim) {
  return restore_reduced_dims(grad, input_sizes, dim, keepdim).expand(input_sizes);
}

Tensor mean_backward(const Tensor& grad, IntArrayRef input_sizes, OptionalIntArrayRef dim, int64_t numel,
                     bool keepdim) {
  int64_t count = 1;
  if (!dim || dim->empty()) {
    count = numel;
  } else if (!input_sizes.empty()) {  // a 0-dim input reduced over its dim 0 (or -1) has one element
    for (int64_t d : reduced_dims(dim, static_cast<int64_t>(input_sizes.size()))) count *= input_sizes[d];
  }
  return sum_backward(grad, input_sizes, dim, keepdim) / count;
}

Tensor amax_amin_backward(const Tensor& grad, const Tensor& self, const Tensor& result, IntArrayRef dim, bool keepdim) {
  Tensor restored_result = restore_reduced_dims(result, self.sizes(), dim, keepdim);
  Tensor restored_grad = restore_reduced_dims(grad, self.sizes(), dim, keepdim);
  Tensor mask = (self == restored_result).to(grad.scalar_type());
  Tensor count = tg::sum(mask, dim.empty() ? OptionalIntArrayRef() : OptionalIntArrayRef(dim), /*keepdim=*/true);
  return restored_grad * mask / count;
}

Tensor evenly_distribute_backward(const Tensor& grad, const Tensor& self, const Tensor& result) {
  Tensor mask = (self == result).to(grad.scalar_type());
  return mask * (grad / tg::sum(mask));
}

Tensor value_selecting_reduction_backward(const Tensor& grad, int64_t dim, const Tensor& indices,
                                          IntArrayRef input_sizes, bool keepdim) {
  int64_t ndim = static_cast<int64_t>(input_sizes.size());
  if (ndim == 0) return grad;
  dim = maybe_wrap_dim(dim, ndim, "max");
  Tensor g = keepdim ? grad : grad.unsqueeze(dim);
  Tensor idx = keepdim ? indices : indices.unsqueeze(dim);
  return tg::zeros(input_sizes, grad.options()).scatter_add(dim, idx, g);
}

}  // namespace tg::autograd
