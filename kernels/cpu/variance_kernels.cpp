// CPU kernels of var and std over a set of dims: the reduced dims are permuted last, so each
// output element reduces one contiguous row of N elements, in double and in two passes
// (the mean, then the squared deviations from it):
//   var = sum((x - mean)^2) / max(0, N - correction),  std = sqrt(var)
// A divisor of 0 gives inf (or NaN for 0 / 0), as in PyTorch.
#include <algorithm>
#include <cmath>
#include <vector>

#include "NativeFunctions.h"
#include "TensorMethods.h"
#include "cpu/convert.h"
#include "cpu/copy.h"
#include "shape_utils.h"

namespace tg {

namespace {

void variance_out(const char* op, const Tensor& self, OptionalIntArrayRef dim, const std::optional<Scalar>& correction,
                  const Tensor& out, bool take_sqrt) {
  const DimMask mask = make_dim_mask(dim, self.dim(), op);
  std::vector<int64_t> order;
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (!mask.test(static_cast<size_t>(d))) order.push_back(d);
  }
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (mask.test(static_cast<size_t>(d))) order.push_back(d);
  }
  const int64_t n = reduced_numel(self.sizes(), mask);
  const Tensor rows = cpu::contiguous_as(self.dim() > 0 ? self.permute(order) : self, kDouble);
  const double* x = rows.data_ptr<double>();
  const double divisor = std::max(0.0, static_cast<double>(n) - (correction ? correction->toDouble() : 1.0));
  const int64_t count = out.numel();
  std::vector<double> result(static_cast<size_t>(count));
  for (int64_t r = 0; r < count; ++r) {
    const double* row = x + r * n;
    double sum = 0;
    for (int64_t j = 0; j < n; ++j) sum += row[j];
    const double mean = sum / static_cast<double>(n);
    double squares = 0;
    for (int64_t j = 0; j < n; ++j) squares += (row[j] - mean) * (row[j] - mean);
    const double variance = squares / divisor;
    result[r] = take_sqrt ? std::sqrt(variance) : variance;
  }
  cpu::store_row(static_cast<char*>(out.data_ptr()), out.element_size(), out.scalar_type(), result.data(), count);
}

}  // namespace

void native::var_out_cpu(const Tensor& self, OptionalIntArrayRef dim, const std::optional<Scalar>& correction,
                         bool /*keepdim*/, const Tensor& out) {
  variance_out("var", self, dim, correction, out, /*take_sqrt=*/false);
}

void native::std_out_cpu(const Tensor& self, OptionalIntArrayRef dim, const std::optional<Scalar>& correction,
                         bool /*keepdim*/, const Tensor& out) {
  variance_out("std", self, dim, correction, out, /*take_sqrt=*/true);
}

}  // namespace tg
