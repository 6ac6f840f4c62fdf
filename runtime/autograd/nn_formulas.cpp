// Derivative helpers of the neural-network operators (schemas/activation.yaml, loss.yaml,
// nn.yaml, indexing.yaml). Written with public operators, so each is itself differentiable.
#include <algorithm>
#include <vector>

#include "Functions.h"
#include "TensorMethods.h"
#include "autograd/formulas.h"
#include "core/reduction.h"
#include "core/wrap_dim.h"
#include "ops/tensor_operators.h"

namespace tg::autograd {

namespace {

constexpr double kSqrt2OverPi = 0.7978845608028654;  // sqrt(2 / pi)
constexpr double kTanhCoefficient = 0.044715;
constexpr double kInvSqrt2Pi = 0.3989422804014327;   // 1 / sqrt(2 pi)

// a + b where either may be undefined (no contribution).
Tensor add_defined(const Tensor& a, const Tensor& b) {
  if (!a.defined()) return b;
  if (!b.defined()) return a;
  return a + b;
}

int64_t product(IntArrayRef sizes) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  return n;
}

}  // namespace

// gelu'' = phi(x) (2 - x^2) exactly; with the tanh approximation, u = k (x + c x^3) and
// t = tanh(u): gelu'' = (1 - t^2) (u' - x t u'^2 + x u'' / 2).
Tensor gelu_double_backward(const Tensor& grad, const Tensor& grad_output, const Tensor& self,
                            std::string_view approximate) {
  Tensor second;
  if (approximate == "tanh") {
    Tensor x2 = self * self;
    Tensor t = tg::tanh((self + self * x2 * kTanhCoefficient) * kSqrt2OverPi);
    Tensor du = (x2 * (3 * kTanhCoefficient) + 1) * kSqrt2OverPi;
    Tensor d2u = self * (6 * kTanhCoefficient * kSqrt2OverPi);
    second = (1 - t * t) * (du - self * t * du * du + self * d2u * 0.5);
  } else {
    Tensor pdf = tg::exp(self * self * -0.5) * kInvSqrt2Pi;
    second = pdf * (2 - self * self);
  }
  return grad * grad_output * second;
}

// silu'' = s (1 - s) (2 + x (1 - 2 s)), s = sigmoid(x).
Tensor silu_double_backward(const Tensor& grad, const Tensor& grad_output, const Tensor& self) {
  Tensor s = tg::sigmoid(self);
  return grad * grad_output * s * (1 - s) * (2 + self * (1 - 2 * s));
}

// With gx = y (g - sum(g y)): d/dy of <G, gx> = G (g - sum(g y)) - g sum(G y).
Tensor softmax_double_backward(const Tensor& grad, const Tensor& grad_output, int64_t dim, const Tensor& output) {
  const IntArrayRef dims(dim);
  return grad * (grad_output - (grad_output * output).sum(dims, true)) - grad_output * (grad * output).sum(dims, true);
}

Tensor log_softmax_backward_grad_output(const Tensor& grad, const Tensor& output, int64_t dim) {
  return grad - (grad * tg::exp(output)).sum(IntArrayRef(dim), true);
}

// With gx = g - exp(y) sum(g): d/dy of <G, gx> = -G exp(y) sum(g).
Tensor log_softmax_double_backward(const Tensor& grad, const Tensor& grad_output, int64_t dim,
                                   const Tensor& output) {
  return -grad * tg::exp(output) * grad_output.sum(IntArrayRef(dim), true);
}

// grad_input[i, t_i] = -w[t_i] grad_output_i (/ total_weight), so the gradient with respect to
// grad_output_i is -w[t_i] G[i, t_i] (/ total_weight), summed when the loss was reduced.
Tensor nll_loss_backward_grad_output(const Tensor& grad, const Tensor& target, const std::optional<Tensor>& weight,
                                     int64_t reduction, int64_t ignore_index, const Tensor& total_weight) {
  Tensor per_target = std::get<0>(tg::nll_loss_forward(grad, target, weight, Reduction::None, ignore_index));
  if (reduction == Reduction::None) return per_target;
  Tensor summed = per_target.sum();
  return reduction == Reduction::Mean ? summed / total_weight.reshape({}) : summed;
}

// For Mean, grad_input is proportional to 1 / total_weight: d/dtotal_weight = -<G, grad_input> / total_weight.
Tensor nll_loss_backward_total_weight(const Tensor& grad, const Tensor& grad_input, const Tensor& total_weight,
                                      int64_t reduction) {
  if (reduction != Reduction::Mean) return tg::zeros_like(total_weight);
  return (-(grad * grad_input).sum() / total_weight.reshape({})).reshape(total_weight.sizes());
}

Tensor mse_loss_double_backward(const Tensor& grad, IntArrayRef self_sizes, IntArrayRef target_sizes,
                                int64_t reduction) {
  if (reduction != Reduction::Mean) return grad * 2;
  // The element count of the broadcast of self and target, the count mse_loss averaged over.
  const size_t ndim = std::max(self_sizes.size(), target_sizes.size());
  int64_t numel = 1;
  for (size_t d = 0; d < ndim; ++d) {
    const int64_t a = d < ndim - self_sizes.size() ? 1 : self_sizes[d - (ndim - self_sizes.size())];
    const int64_t b = d < ndim - target_sizes.size() ? 1 : target_sizes[d - (ndim - target_sizes.size())];
    numel *= a == 1 ? b : a;
  }
  return grad * (2.0 / static_cast<double>(numel));
}

Tensor mse_loss_double_backward_grad_output(const Tensor& grad, const Tensor& grad_output, const Tensor& self,
                                            const Tensor& target, int64_t reduction) {
  if (reduction == Reduction::None) return tg::mse_loss_backward(grad, self, target, reduction);
  Tensor per_element = tg::mse_loss_backward(tg::ones_like(grad_output), self, target, reduction);
  return (per_element * grad).sum().reshape(grad_output.sizes());
}

// Note [Layer norm double backward]
// Per row (the normalized dims, N elements), with r = rstd, x^ = (x - mean) r, g' = g w and
// means over the row, native_layer_norm_backward computes
//   gx = r (g' - mean(g') - x^ mean(g' x^)),  gw = sum_rows(g x^),  gb = sum_rows(g).
// mean and rstd are the row's statistics, so they move with x: dr/dx_k = -r^2 x^_k / N and
//   sum_i v_i dx^_i/dx_k = J(v)_k = r (v_k - mean(v) - x^_k mean(v x^)),
// the operator gx applies to g' (it is self-adjoint). For incoming gradients a (of gx),
// c (of gw) and e (of gb), with A1 = sum(a (g' - mean(g'))), Ax = sum(a x^), m2 = mean(g' x^):
//   d/dg = w J(a) + c x^ + e
//   d/dx = -(r^2 x^ / N)(A1 - m2 Ax) - r (Ax / N) J(g') - r m2 J(a) + J(g c)
//   d/dw = sum_rows(g J(a))
std::tuple<Tensor, Tensor, Tensor> layer_norm_double_backward(
    const Tensor& input, const Tensor& weight, const Tensor& grad_grad_input, const Tensor& grad_grad_weight,
    const Tensor& grad_grad_bias, const Tensor& grad_out, const Tensor& mean, const Tensor& rstd,
    IntArrayRef normalized_shape, std::array<bool, 3> output_mask) {
  const int64_t axis = input.dim() - static_cast<int64_t>(normalized_shape.size());
  std::vector<int64_t> row_dims, batch_dims;
  for (int64_t d = 0; d < input.dim(); ++d) (d < axis ? batch_dims : row_dims).push_back(d);
  const double n = static_cast<double>(product(normalized_shape));
  auto row_mean = [&](const Tensor& t) { return t.mean(IntArrayRef(row_dims), true); };
  auto row_sum = [&](const Tensor& t) { return t.sum(IntArrayRef(row_dims), true); };
  auto sum_batch = [&](const Tensor& t) { return batch_dims.empty() ? t : t.sum(IntArrayRef(batch_dims)); };
  const bool has_weight = weight.defined();

  Tensor x_hat = (input - mean) * rstd;
  auto adjoint = [&](const Tensor& v) { return rstd * (v - row_mean(v) - x_hat * row_mean(v * x_hat)); };
  Tensor g_prime = has_weight ? grad_out * weight : grad_out;

  Tensor d_grad_out, d_input, d_weight;
  if (grad_grad_input.defined()) {
    Tensor j_a = adjoint(grad_grad_input);
    d_grad_out = has_weight ? j_a * weight : j_a;
    if (has_weight) d_weight = sum_batch(grad_out * j_a);
    Tensor a1 = row_sum(grad_grad_input * (g_prime - row_mean(g_prime)));
    Tensor ax = row_sum(grad_grad_input * x_hat);
    Tensor m2 = row_mean(g_prime * x_hat);
    d_input = -(rstd * rstd * x_hat / n) * (a1 - m2 * ax) - rstd * (ax / n) * adjoint(g_prime) - rstd * m2 * j_a;
  }
  if (grad_grad_weight.defined()) {
    d_grad_out = add_defined(d_grad_out, grad_grad_weight * x_hat);
    d_input = add_defined(d_input, adjoint(grad_out * grad_grad_weight));
  }
  if (grad_grad_bias.defined()) d_grad_out = add_defined(d_grad_out, grad_grad_bias.expand(grad_out.sizes()));
  return {output_mask[0] ? d_grad_out : Tensor(), output_mask[1] ? d_input : Tensor(),
          output_mask[2] && has_weight ? d_weight : Tensor()};
}

Tensor embedding_dense_double_backward(const Tensor& grad, const Tensor& indices, int64_t num_weights,
                                       int64_t padding_idx, bool scale_grad_by_freq) {
  Tensor flat = indices.reshape({-1});
  Tensor rows = grad.index_select(0, flat);
  if (scale_grad_by_freq) {
    Tensor ones = tg::ones({flat.numel()}, grad.options());
    Tensor counts = tg::zeros({num_weights}, grad.options()).index_add(0, flat, ones);
    rows = rows / counts.index_select(0, flat).unsqueeze(1);
  }
  rows = tg::where((flat == padding_idx).unsqueeze(1), tg::zeros_like(rows), rows);
  std::vector<int64_t> sizes = indices.sizes().vec();
  sizes.push_back(grad.size(1));
  return rows.view(sizes);
}

double dropout_scale(double p, std::optional<bool> train) {
  if (!train.value_or(true)) return 1.0;
  return p == 1.0 ? 0.0 : 1.0 / (1.0 - p);
}

Tensor index_select_backward(const Tensor& grad, IntArrayRef input_sizes, int64_t dim, const Tensor& index) {
  return tg::zeros(input_sizes, grad.options()).index_add(dim, index, grad);
}

Tensor index_add_source_backward(const Tensor& grad, int64_t dim, const Tensor& index, IntArrayRef source_sizes) {
  return grad.index_select(dim, index).reshape(source_sizes);
}

Tensor gather_backward(const Tensor& grad, IntArrayRef self_sizes, int64_t dim, const Tensor& index, bool sparse_grad) {
  TG_CHECK_NOT_IMPLEMENTED(!sparse_grad, "[gather] sparse_grad=True asks for a sparse gradient, and tensorgen has ",
                           "no sparse tensors; use sparse_grad=False");
  return tg::zeros(self_sizes, grad.options()).scatter_add(dim, index, grad);
}

Tensor scatter_add_src_backward(const Tensor& grad, int64_t dim, const Tensor& index, IntArrayRef src_sizes) {
  Tensor gathered = grad.gather(dim, index);
  // Pad with zeros up to src's shape, one dim at a time (cat keeps it differentiable).
  for (int64_t d = 0; d < gathered.dim(); ++d) {
    const int64_t missing = src_sizes[static_cast<size_t>(d)] - gathered.size(d);
    if (missing == 0) continue;
    std::vector<int64_t> pad_sizes = gathered.sizes().vec();
    pad_sizes[static_cast<size_t>(d)] = missing;
    gathered = tg::cat(std::vector<Tensor>{gathered, tg::zeros(pad_sizes, gathered.options())}, d);
  }
  return gathered;
}

Tensor masked_fill_value_backward(const Tensor& grad, const Tensor& mask) {
  return tg::where(mask, grad, tg::zeros_like(grad)).sum();
}

std::vector<Tensor> cat_tensors_backward(const Tensor& grad, const std::vector<std::vector<int64_t>>& sizes,
                                         const std::vector<ScalarType>& /*dtypes*/, int64_t dim) {
  auto is_legacy_empty = [](const std::vector<int64_t>& s) { return s.size() == 1 && s[0] == 0; };
  dim = maybe_wrap_dim(dim, grad.dim(), "cat");
  std::vector<Tensor> grads;
  int64_t offset = 0;
  for (const std::vector<int64_t>& s : sizes) {
    if (is_legacy_empty(s)) {
      grads.push_back(tg::zeros({0}, grad.options()));
      continue;
    }
    const int64_t length = s[static_cast<size_t>(dim)];
    grads.push_back(grad.narrow(dim, offset, length));
    offset += length;
  }
  return grads;
}

std::vector<Tensor> stack_tensors_backward(const Tensor& grad, int64_t dim, const std::vector<ScalarType>& dtypes) {
  dim = maybe_wrap_dim(dim, grad.dim(), "stack");
  std::vector<Tensor> grads;
  for (size_t i = 0; i < dtypes.size(); ++i) grads.push_back(grad.select(dim, static_cast<int64_t>(i)));
  return grads;
}

Tensor var_backward(const Tensor& grad, const Tensor& self, OptionalIntArrayRef dim,
                    const std::optional<Scalar>& correction, bool keepdim) {
  int64_t n = 1;
  if (!dim || dim->empty()) {
    n = self.numel();
  } else {
    for (int64_t d : *dim) n *= self.dim() == 0 ? 1 : self.size(maybe_wrap_dim(d, self.dim(), "var"));
  }
  const double divisor = std::max(0.0, static_cast<double>(n) - (correction ? correction->toDouble() : 1.0));
  Tensor spread = sum_backward(grad, self.sizes(), dim, keepdim);
  return spread * (self - self.mean(dim, true)) * (2.0 / divisor);
}

// d std = d var / (2 std); 0 where std is 0, as PyTorch.
Tensor std_backward(const Tensor& result, const Tensor& grad, const Tensor& self, OptionalIntArrayRef dim,
                    const std::optional<Scalar>& correction, bool keepdim) {
  Tensor grad_var = tg::where(result == 0, tg::zeros_like(grad), grad / (result * 2));
  return var_backward(grad_var, self, dim, correction, keepdim);
}

Tensor cumsum_backward(const Tensor& grad, int64_t dim) {
  if (grad.numel() == 0) return grad;
  return grad - grad.cumsum(dim) + grad.sum(IntArrayRef(dim), true);
}

std::optional<std::vector<int64_t>> optional_sizes(const Tensor& t) {
  if (!t.defined()) return std::nullopt;
  return t.sizes().vec();
}

Tensor im2col_backward(const Tensor& grad, IntArrayRef input_sizes, IntArrayRef kernel_size, IntArrayRef dilation,
                       IntArrayRef padding, IntArrayRef stride) {
  const std::vector<int64_t> image_size(input_sizes.end() - 2, input_sizes.end());
  return tg::col2im(grad, image_size, kernel_size, dilation, padding, stride);
}

// Note [Convolution double backward]
// out = conv(x, w) + b is bilinear in (x, w), so with incoming gradients a (of grad_input),
// c (of grad_weight) and e (of grad_bias), and g the grad_output:
//   d/dg = conv(a, w) + conv(x, c) + e           (the forward, applied to the perturbations)
//   d/dx = grad_input of conv(x, c) at g          (from grad_weight = corr(x, g))
//   d/dw = grad_weight of conv(a, w) at g         (from grad_input = conv^T(g, w))
// each computed by convolution and convolution_backward, so itself differentiable.
std::tuple<Tensor, Tensor, Tensor> _convolution_double_backward(
    const Tensor& grad_grad_input, const Tensor& grad_grad_weight, const Tensor& grad_grad_bias,
    const Tensor& grad_output, const Tensor& weight, const Tensor& input, IntArrayRef stride, IntArrayRef padding,
    IntArrayRef dilation, bool transposed, IntArrayRef output_padding, int64_t groups,
    std::array<bool, 3> output_mask) {
  Tensor d_grad_output, d_input, d_weight;
  if (output_mask[0]) {
    if (grad_grad_input.defined()) {
      d_grad_output = tg::convolution(grad_grad_input, weight, std::nullopt, stride, padding, dilation, transposed,
                                      output_padding, groups);
    }
    if (grad_grad_weight.defined()) {
      Tensor through_weight = tg::convolution(input, grad_grad_weight, std::nullopt, stride, padding, dilation,
                                              transposed, output_padding, groups);
      d_grad_output = add_defined(d_grad_output, through_weight);
    }
    if (grad_grad_bias.defined()) {
      std::vector<int64_t> bias_shape(static_cast<size_t>(grad_output.dim()), 1);
      // Batched: grad_output has weight's rank ([N, O, *] against [O, C / G, *k]).
      bias_shape[grad_output.dim() == weight.dim() ? 1 : 0] = grad_grad_bias.numel();
      d_grad_output = add_defined(d_grad_output, grad_grad_bias.view(bias_shape).expand(grad_output.sizes()));
    }
  }
  if (output_mask[1] && grad_grad_weight.defined()) {
    d_input = std::get<0>(tg::convolution_backward(grad_output, input, grad_grad_weight, std::nullopt, stride, padding,
                                                   dilation, transposed, output_padding, groups, {true, false, false}));
  }
  if (output_mask[2] && grad_grad_input.defined()) {
    d_weight = std::get<1>(tg::convolution_backward(grad_output, grad_grad_input, weight, std::nullopt, stride,
                                                    padding, dilation, transposed, output_padding, groups,
                                                    {false, true, false}));
  }
  return {d_grad_output, d_input, d_weight};
}

Tensor max_pool_double_backward(const Tensor& grad, const Tensor& indices, int64_t spatial_dims) {
  return grad.flatten(-spatial_dims).gather(-1, indices.flatten(-spatial_dims)).view(indices.sizes());
}

std::vector<int64_t> trailing_sizes(IntArrayRef sizes, int64_t n) {
  TG_INTERNAL_ASSERT(n >= 0 && n <= static_cast<int64_t>(sizes.size()), "trailing_sizes: ", n, " of ", sizes);
  return std::vector<int64_t>(sizes.end() - n, sizes.end());
}

}  // namespace tg::autograd
