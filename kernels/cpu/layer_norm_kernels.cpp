// CPU kernels of native_layer_norm and native_layer_norm_backward. The input is seen as M
// rows of N contiguous elements (N the product of normalized_shape); per row, in double:
//   mean = sum(x) / N,  rstd = 1 / sqrt(sum((x - mean)^2) / N + eps),  x^ = (x - mean) rstd
//   out = x^ w + b
//   grad_input = rstd (g' - mean(g') - x^ mean(g' x^)),  g' = grad_out w
//   grad_weight = sum over rows of grad_out x^,  grad_bias = sum over rows of grad_out
#include <algorithm>
#include <cmath>
#include <vector>

#include "NativeFunctions.h"
#include "cpu/convert.h"
#include "cpu/copy.h"
#include "dtype_dispatch.h"

namespace tg {

namespace {

bool defined(const std::optional<Tensor>& t) { return t.has_value() && t->defined(); }

int64_t product(IntArrayRef sizes) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  return n;
}

// The number of leading (batch) dims, after PyTorch's checks of the shapes.
int64_t check_layer_norm_inputs(const Tensor& input, IntArrayRef normalized_shape,
                                const std::optional<Tensor>& weight, const std::optional<Tensor>& bias) {
  const int64_t normalized_ndim = static_cast<int64_t>(normalized_shape.size());
  TG_CHECK_VALUE(normalized_ndim >= 1, "[layer_norm] expected normalized_shape to be at least 1-dimensional, i.e., ",
                 "containing at least one element, but got normalized_shape = ", normalized_shape);
  TG_CHECK_VALUE(!defined(weight) || weight->sizes() == normalized_shape, "[layer_norm] expected weight to be of ",
                 "same shape as normalized_shape, but got weight of shape ", weight->sizes(),
                 " and normalized_shape = ", normalized_shape);
  TG_CHECK_VALUE(!defined(bias) || bias->sizes() == normalized_shape, "[layer_norm] expected bias to be of same ",
                 "shape as normalized_shape, but got bias of shape ", bias->sizes(), " and normalized_shape = ",
                 normalized_shape);
  const int64_t axis = input.dim() - normalized_ndim;
  TG_CHECK_VALUE(axis >= 0 && input.sizes().slice(static_cast<size_t>(axis)) == normalized_shape,
                 "[layer_norm] given normalized_shape=", normalized_shape, ", expected input with shape [*",
                 normalized_shape, "], but got input of size ", input.sizes());
  return axis;
}

// The shape of mean and rstd: the batch dims, then a 1 per normalized dim.
DimVector stats_shape(IntArrayRef sizes, int64_t axis) {
  DimVector shape(sizes);
  for (size_t d = static_cast<size_t>(axis); d < shape.size(); ++d) shape[d] = 1;
  return shape;
}

// Row values of an optional per-element parameter (weight or bias), as double; `fill` without it.
std::vector<double> parameter_row(const std::optional<Tensor>& p, int64_t n, double fill) {
  std::vector<double> row(static_cast<size_t>(n), fill);
  if (defined(p)) {
    const Tensor c = cpu::contiguous_as(*p, kDouble);
    std::copy_n(c.data_ptr<double>(), n, row.begin());
  }
  return row;
}

}  // namespace

std::tuple<Tensor, Tensor, Tensor> native::layer_norm_cpu(const Tensor& input, IntArrayRef normalized_shape,
                                                          const std::optional<Tensor>& weight,
                                                          const std::optional<Tensor>& bias, double eps) {
  const int64_t axis = check_layer_norm_inputs(input, normalized_shape, weight, bias);
  const ScalarType dtype = input.scalar_type();
  Tensor out = make_empty_tensor(input.sizes(), dtype, input.device());
  Tensor mean = make_empty_tensor(stats_shape(input.sizes(), axis), dtype, input.device());
  Tensor rstd = make_empty_tensor(stats_shape(input.sizes(), axis), dtype, input.device());
  const int64_t n = product(normalized_shape);
  const int64_t m = mean.numel();
  TG_DISPATCH_FLOATING_TYPES(dtype, "layer_norm", [&] {
    const Tensor x_t = cpu::contiguous_as(input, dtype);
    const scalar_t* x = x_t.data_ptr<scalar_t>();
    scalar_t* y = out.data_ptr<scalar_t>();
    const std::vector<double> w = parameter_row(weight, n, 1.0);
    const std::vector<double> b = parameter_row(bias, n, 0.0);
    for (int64_t row = 0; row < m && n > 0; ++row) {
      const scalar_t* xr = x + row * n;
      double sum = 0;
      for (int64_t j = 0; j < n; ++j) sum += cpu::convert<double>(xr[j]);
      const double mu = sum / static_cast<double>(n);
      double squares = 0;
      for (int64_t j = 0; j < n; ++j) {
        const double centered = cpu::convert<double>(xr[j]) - mu;
        squares += centered * centered;
      }
      const double r = 1.0 / std::sqrt(squares / static_cast<double>(n) + eps);
      scalar_t* yr = y + row * n;
      for (int64_t j = 0; j < n; ++j) {
        yr[j] = cpu::convert<scalar_t>((cpu::convert<double>(xr[j]) - mu) * r * w[j] + b[j]);
      }
      mean.data_ptr<scalar_t>()[row] = cpu::convert<scalar_t>(mu);
      rstd.data_ptr<scalar_t>()[row] = cpu::convert<scalar_t>(r);
    }
  });
  return {out, mean, rstd};
}

std::tuple<Tensor, Tensor, Tensor> native::layer_norm_backward_cpu(
    const Tensor& grad_out, const Tensor& input, IntArrayRef normalized_shape, const Tensor& mean, const Tensor& rstd,
    const std::optional<Tensor>& weight, const std::optional<Tensor>& bias, std::array<bool, 3> output_mask) {
  const int64_t axis = check_layer_norm_inputs(input, normalized_shape, weight, bias);
  TG_CHECK_VALUE(grad_out.sizes() == input.sizes(), "[layer_norm_backward] expected grad_out of input's shape ",
                 input.sizes(), ", got ", grad_out.sizes());
  const DimVector expected_stats = stats_shape(input.sizes(), axis);
  TG_CHECK_VALUE(mean.numel() == product(expected_stats) && rstd.numel() == product(expected_stats),
                 "[layer_norm_backward] expected mean and rstd of shape ", IntArrayRef(expected_stats), ", got ",
                 mean.sizes(), " and ", rstd.sizes());
  const ScalarType dtype = input.scalar_type();
  const int64_t m = mean.numel();
  const int64_t n = product(normalized_shape);
  Tensor grad_input, grad_weight, grad_bias;
  if (output_mask[0]) grad_input = make_empty_tensor(input.sizes(), dtype, input.device());
  if (output_mask[1]) grad_weight = make_empty_tensor(normalized_shape, dtype, input.device());
  if (output_mask[2]) grad_bias = make_empty_tensor(normalized_shape, dtype, input.device());
  TG_DISPATCH_FLOATING_TYPES(dtype, "layer_norm_backward", [&] {
    const Tensor x_t = cpu::contiguous_as(input, dtype);
    const Tensor g_t = cpu::contiguous_as(grad_out, dtype);
    const Tensor mean_t = cpu::contiguous_as(mean, kDouble);
    const Tensor rstd_t = cpu::contiguous_as(rstd, kDouble);
    const scalar_t* x = x_t.data_ptr<scalar_t>();
    const scalar_t* g = g_t.data_ptr<scalar_t>();
    const std::vector<double> w = parameter_row(weight, n, 1.0);
    std::vector<double> dw(static_cast<size_t>(n), 0.0), db(static_cast<size_t>(n), 0.0);
    std::vector<double> x_hat(static_cast<size_t>(n));
    for (int64_t row = 0; row < m && n > 0; ++row) {
      const double mu = mean_t.data_ptr<double>()[row], r = rstd_t.data_ptr<double>()[row];
      const scalar_t* xr = x + row * n;
      const scalar_t* gr = g + row * n;
      double sum_g = 0, sum_g_xhat = 0;
      for (int64_t j = 0; j < n; ++j) {
        const double gj = cpu::convert<double>(gr[j]);
        x_hat[j] = (cpu::convert<double>(xr[j]) - mu) * r;
        sum_g += gj * w[j];
        sum_g_xhat += gj * w[j] * x_hat[j];
        dw[j] += gj * x_hat[j];
        db[j] += gj;
      }
      if (!output_mask[0]) continue;
      const double mean_g = sum_g / static_cast<double>(n), mean_g_xhat = sum_g_xhat / static_cast<double>(n);
      scalar_t* gx = grad_input.data_ptr<scalar_t>() + row * n;
      for (int64_t j = 0; j < n; ++j) {
        gx[j] = cpu::convert<scalar_t>(r * (cpu::convert<double>(gr[j]) * w[j] - mean_g - x_hat[j] * mean_g_xhat));
      }
    }
    const int64_t item = sizeof(scalar_t);
    if (output_mask[1]) cpu::store_row(static_cast<char*>(grad_weight.data_ptr()), item, dtype, dw.data(), n);
    if (output_mask[2]) cpu::store_row(static_cast<char*>(grad_bias.data_ptr()), item, dtype, db.data(), n);
  });
  return {grad_input, grad_weight, grad_bias};
}

}  // namespace tg
