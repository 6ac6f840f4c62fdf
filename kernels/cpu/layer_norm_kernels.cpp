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
#include "nn_rules.h"

namespace tg {

namespace {

bool defined(const std::optional<Tensor>& t) { return t.has_value() && t->defined(); }

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
  const LayerNormShape shape = check_layer_norm(input, normalized_shape, weight, bias);
  const ScalarType dtype = input.scalar_type();
  auto [out, mean, rstd] = layer_norm_outputs(input, shape);
  const int64_t n = shape.row_size;
  const int64_t m = shape.rows;
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
  const LayerNormShape shape =
      check_layer_norm_backward(grad_out, input, normalized_shape, mean, rstd, weight, bias);
  const ScalarType dtype = input.scalar_type();
  const int64_t m = shape.rows;
  const int64_t n = shape.row_size;
  auto [grad_input, grad_weight, grad_bias] = layer_norm_backward_outputs(input, normalized_shape, output_mask);
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
