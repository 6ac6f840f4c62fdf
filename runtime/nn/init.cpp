#include "nn/init.h"

#include <cmath>
#include <vector>

#include "autograd/grad_mode.h"
#include "core/error.h"
#include "tensorgen/ops.h"

namespace tg::nn::init {
namespace {

void check_defined(const Tensor& tensor, const char* op) {
  TG_CHECK(tensor.defined(), "[nn::init::", op, "] expected a defined tensor, got an undefined one");
}

int64_t fan(const Tensor& tensor, const FanModeType& mode) {
  auto [fan_in, fan_out] = _calculate_fan_in_and_fan_out(tensor);
  return std::holds_alternative<enumtype::kFanIn>(mode) ? fan_in : fan_out;
}

}  // namespace

double calculate_gain(NonlinearityType nonlinearity, double param) {
  if (std::holds_alternative<enumtype::kTanh>(nonlinearity)) return 5.0 / 3.0;
  if (std::holds_alternative<enumtype::kReLU>(nonlinearity)) return std::sqrt(2.0);
  if (std::holds_alternative<enumtype::kLeakyReLU>(nonlinearity)) return std::sqrt(2.0 / (1 + param * param));
  return 1.0;  // linear, convolutions, sigmoid
}

std::tuple<int64_t, int64_t> _calculate_fan_in_and_fan_out(const Tensor& tensor) {
  check_defined(tensor, "_calculate_fan_in_and_fan_out");
  TG_CHECK(tensor.dim() >= 2,
           "[nn::init] fan in and fan out can not be computed for a tensor with fewer than 2 dimensions; got shape ",
           tensor.sizes());
  int64_t receptive_field = 1;
  for (int64_t d = 2; d < tensor.dim(); ++d) receptive_field *= tensor.size(d);
  return {tensor.size(1) * receptive_field, tensor.size(0) * receptive_field};
}

Tensor constant_(Tensor tensor, Scalar value) {
  check_defined(tensor, "constant_");
  NoGradGuard no_grad;
  return tensor.fill_(value);
}

Tensor ones_(Tensor tensor) { return constant_(std::move(tensor), 1); }
Tensor zeros_(Tensor tensor) {
  check_defined(tensor, "zeros_");
  NoGradGuard no_grad;
  return tensor.zero_();
}

Tensor eye_(Tensor matrix) {
  check_defined(matrix, "eye_");
  TG_CHECK(matrix.dim() == 2, "[nn::init::eye_] only tensors with 2 dimensions are supported, got ", matrix.sizes());
  NoGradGuard no_grad;
  matrix.zero_();
  const int64_t n = std::min(matrix.size(0), matrix.size(1));
  for (int64_t i = 0; i < n; ++i) matrix.select(0, i).select(0, i).fill_(1);
  return matrix;
}

Tensor uniform_(Tensor tensor, double low, double high) {
  check_defined(tensor, "uniform_");
  TG_CHECK(low <= high, "[nn::init::uniform_] expected low <= high, got low = ", low, " and high = ", high);
  NoGradGuard no_grad;
  return tensor.uniform_(low, high);
}

Tensor normal_(Tensor tensor, double mean, double std) {
  check_defined(tensor, "normal_");
  TG_CHECK(std >= 0, "[nn::init::normal_] expected std >= 0, got ", std);
  NoGradGuard no_grad;
  return tensor.normal_(mean, std);
}

Tensor xavier_uniform_(Tensor tensor, double gain) {
  auto [fan_in, fan_out] = _calculate_fan_in_and_fan_out(tensor);
  const double a = gain * std::sqrt(6.0 / static_cast<double>(fan_in + fan_out));
  return uniform_(std::move(tensor), -a, a);
}

Tensor xavier_normal_(Tensor tensor, double gain) {
  auto [fan_in, fan_out] = _calculate_fan_in_and_fan_out(tensor);
  return normal_(std::move(tensor), 0, gain * std::sqrt(2.0 / static_cast<double>(fan_in + fan_out)));
}

Tensor kaiming_uniform_(Tensor tensor, double a, FanModeType mode, NonlinearityType nonlinearity) {
  const int64_t n = fan(tensor, mode);
  TG_CHECK(n > 0, "[nn::init::kaiming_uniform_] cannot initialise a tensor with zero elements, got shape ", tensor.sizes());
  const double bound = calculate_gain(nonlinearity, a) * std::sqrt(3.0 / static_cast<double>(n));
  return uniform_(std::move(tensor), -bound, bound);
}

Tensor kaiming_normal_(Tensor tensor, double a, FanModeType mode, NonlinearityType nonlinearity) {
  const int64_t n = fan(tensor, mode);
  TG_CHECK(n > 0, "[nn::init::kaiming_normal_] cannot initialise a tensor with zero elements, got shape ", tensor.sizes());
  return normal_(std::move(tensor), 0, calculate_gain(nonlinearity, a) / std::sqrt(static_cast<double>(n)));
}

Tensor orthogonal_(Tensor tensor, double gain) {
  check_defined(tensor, "orthogonal_");
  TG_CHECK(tensor.dim() >= 2, "[nn::init::orthogonal_] only tensors with 2 or more dimensions are supported, got ",
           tensor.sizes());
  if (tensor.numel() == 0) return tensor;
  NoGradGuard no_grad;
  const int64_t rows = tensor.size(0), cols = tensor.numel() / rows;
  // Orthonormalise the `k` shorter vectors of a Gaussian matrix by modified Gram-Schmidt,
  // which gives the Q of a QR decomposition whose R has a positive diagonal (the sign fix
  // PyTorch applies), so the result is distributed uniformly (Haar) as PyTorch's is.
  const int64_t k = std::min(rows, cols), length = std::max(rows, cols);
  const Tensor gaussian = tg::randn({k, length}, TensorOptions().dtype(kDouble)).contiguous();
  std::vector<double> q(gaussian.data_ptr<double>(), gaussian.data_ptr<double>() + k * length);
  for (int64_t i = 0; i < k; ++i) {
    double* v = q.data() + i * length;
    for (int64_t j = 0; j < i; ++j) {
      const double* u = q.data() + j * length;
      double dot = 0;
      for (int64_t t = 0; t < length; ++t) dot += u[t] * v[t];
      for (int64_t t = 0; t < length; ++t) v[t] -= dot * u[t];
    }
    double norm = 0;
    for (int64_t t = 0; t < length; ++t) norm += v[t] * v[t];
    norm = std::sqrt(norm);
    TG_INTERNAL_ASSERT(norm > 0, "orthogonal_: a Gaussian matrix was rank-deficient");
    for (int64_t t = 0; t < length; ++t) v[t] /= norm;
  }
  for (double& x : q) x *= gain;  // after all rows are orthonormal: the projections need unit rows
  Tensor matrix = tg::tensor(q, TensorOptions().dtype(kDouble)).view({k, length});
  if (rows < cols) {
    // k == rows: the rows are orthonormal already.
  } else {
    matrix = matrix.t();  // [length = rows, k = cols]: orthonormal columns
  }
  tensor.copy_(matrix.reshape(tensor.sizes()));
  return tensor;
}

void conv_default_(const Tensor& weight, const Tensor& bias) {
  kaiming_uniform_(weight, std::sqrt(5.0));
  if (bias.defined()) {
    auto [fan_in, fan_out] = _calculate_fan_in_and_fan_out(weight);
    const double bound = 1.0 / std::sqrt(static_cast<double>(fan_in));
    uniform_(bias, -bound, bound);
  }
}

}  // namespace tg::nn::init
