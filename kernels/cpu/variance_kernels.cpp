// CPU kernels of var and std over a set of dims: the reduced dims are permuted last, so each
// output element reduces one contiguous row of N elements, in double and in two passes
// (the mean, then the squared deviations from it):
//   var = sum((x - mean)^2) / max(0, N - correction),  std = sqrt(var)
// A divisor of 0 gives inf (or NaN for 0 / 0), as in PyTorch.
#include <algorithm>
#include <cmath>
#include <type_traits>
#include <utility>
#include <vector>

#include "NativeFunctions.h"
#include "TensorMethods.h"
#include "cpu/convert.h"
#include "cpu/copy.h"
#include "dtype_dispatch.h"
#include "shape_utils.h"

namespace tg {

namespace {

// The mean and the sum of squared deviations of n elements laid out as `runs` contiguous runs
// of `run` elements starting at x + offsets[i] (the reduced dims of one output element, the
// last of them contiguous). In double, over kLanes independent sums, so that the loop is not
// one chain of dependent adds (the plain loop below ran at one add per 4 cycles).
template <typename T>
std::pair<double, double> mean_and_squares(const T* x, const std::vector<int64_t>& offsets, int64_t run) {
  constexpr int kLanes = 16;
  double lanes[kLanes] = {};
  double tail = 0;
  const int64_t body = run / kLanes * kLanes;
  for (const int64_t offset : offsets) {
    const T* row = x + offset;
    for (int64_t j = 0; j < body; j += kLanes) {
      for (int k = 0; k < kLanes; ++k) lanes[k] += static_cast<double>(row[j + k]);
    }
    for (int64_t j = body; j < run; ++j) tail += static_cast<double>(row[j]);
  }
  double sum = tail;
  for (double lane : lanes) sum += lane;
  const double n = static_cast<double>(run) * static_cast<double>(offsets.size());
  const double mean = sum / n;
  std::fill(std::begin(lanes), std::end(lanes), 0.0);
  tail = 0;
  for (const int64_t offset : offsets) {
    const T* row = x + offset;
    for (int64_t j = 0; j < body; j += kLanes) {
      for (int k = 0; k < kLanes; ++k) {
        const double d = static_cast<double>(row[j + k]) - mean;
        lanes[k] += d * d;
      }
    }
    for (int64_t j = body; j < run; ++j) {
      const double d = static_cast<double>(row[j]) - mean;
      tail += d * d;
    }
  }
  double squares = tail;
  for (double lane : lanes) squares += lane;
  return {mean, squares};
}

// Element offsets of every index of `sizes` (row-major) under `strides`.
std::vector<int64_t> offsets_of(IntArrayRef sizes, IntArrayRef strides) {
  std::vector<int64_t> offsets{0};
  for (size_t d = 0; d < sizes.size(); ++d) {
    std::vector<int64_t> next;
    next.reserve(offsets.size() * static_cast<size_t>(sizes[d]));
    for (const int64_t base : offsets) {
      for (int64_t i = 0; i < sizes[d]; ++i) next.push_back(base + i * strides[d]);
    }
    offsets = std::move(next);
  }
  return offsets;
}

// var / std of a float or double input whose reduced dims end in a contiguous run of at least
// kMinRun elements (batch_norm's statistics over [N, *, H * W]): read in place, without the
// permuted copy in double. Returns false where it does not apply.
bool variance_in_place(const Tensor& self, const std::vector<int64_t>& order, size_t kept, int64_t n,
                       double divisor, const Tensor& out, bool take_sqrt) {
  constexpr int64_t kMinRun = 64;
  if (self.dim() == 0 || kept == order.size() || n == 0) return false;
  if (self.scalar_type() != kFloat && self.scalar_type() != kDouble) return false;
  const Tensor p = self.permute(order);
  if (p.strides().back() != 1) return false;
  // The run: the last reduced dims that lie one after another in memory.
  size_t run_begin = order.size() - 1;
  int64_t run = p.sizes().back();
  while (run_begin > kept && p.strides()[run_begin - 1] == run) run *= p.sizes()[--run_begin];
  if (run < kMinRun) return false;
  const std::vector<int64_t> kept_offsets = offsets_of(p.sizes().slice(0, kept), p.strides().slice(0, kept));
  const std::vector<int64_t> run_offsets =
      offsets_of(p.sizes().slice(kept, run_begin - kept), p.strides().slice(kept, run_begin - kept));
  std::vector<double> result(kept_offsets.size());
  TG_DISPATCH_FLOATING_TYPES(self.scalar_type(), "var", [&] {
    if constexpr (std::is_same_v<scalar_t, float> || std::is_same_v<scalar_t, double>) {
      const scalar_t* x = p.data_ptr<scalar_t>();
      std::vector<int64_t> offsets(run_offsets.size());
      for (size_t r = 0; r < kept_offsets.size(); ++r) {
        for (size_t i = 0; i < offsets.size(); ++i) offsets[i] = kept_offsets[r] + run_offsets[i];
        const double variance = mean_and_squares(x, offsets, run).second / divisor;
        result[r] = take_sqrt ? std::sqrt(variance) : variance;
      }
    }
  });
  cpu::store_row(static_cast<char*>(out.data_ptr()), out.element_size(), out.scalar_type(), result.data(),
                 static_cast<int64_t>(result.size()));
  return true;
}

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
  const double divisor = std::max(0.0, static_cast<double>(n) - (correction ? correction->toDouble() : 1.0));
  size_t kept = 0;
  for (int64_t d = 0; d < self.dim(); ++d) kept += mask.test(static_cast<size_t>(d)) ? 0 : 1;
  if (variance_in_place(self, order, kept, n, divisor, out, take_sqrt)) return;
  const Tensor rows = cpu::contiguous_as(self.dim() > 0 ? self.permute(order) : self, kDouble);
  const double* x = rows.data_ptr<double>();
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
