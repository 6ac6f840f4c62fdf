// CPU kernels of native_layer_norm and native_layer_norm_backward. The input is seen as M
// rows of N contiguous elements (N the product of normalized_shape); per row, in double:
//   mean = sum(x) / N,  rstd = 1 / sqrt(sum((x - mean)^2) / N + eps),  x^ = (x - mean) rstd
//   out = x^ w + b
//   grad_input = rstd (g' - mean(g') - x^ mean(g' x^)),  g' = grad_out w
//   grad_weight = sum over rows of grad_out x^,  grad_bias = sum over rows of grad_out
#include <algorithm>
#include <cmath>
#include <cstring>
#include <tuple>
#include <type_traits>
#include <vector>

#include "NativeFunctions.h"
#include "core/parallel.h"
#include "cpu/convert.h"
#include "cpu/copy.h"
#include "cpu/parallel.h"
#include "cpu/vec.h"
#include "dtype_dispatch.h"
#include "nn_rules.h"

namespace tg {

namespace {

bool defined(const std::optional<Tensor>& t) { return t.has_value() && t->defined(); }

// Row values of an optional per-element parameter (weight or bias), as double; `fill` without it.
// A contiguous parameter of the input's dtype T (the usual case) is read in place, so that a
// planned graph's layer norm allocates no tensor (the same values: T to double is exact).
template <typename T>
std::vector<double> parameter_row(const std::optional<Tensor>& p, int64_t n, double fill, ScalarType dtype) {
  std::vector<double> row(static_cast<size_t>(n), fill);
  if (!defined(p)) return row;
  if (p->is_contiguous() && p->scalar_type() == dtype) {
    const T* values = p->data_ptr<T>();
    for (int64_t j = 0; j < n; ++j) row[static_cast<size_t>(j)] = cpu::convert<double>(values[j]);
    return row;
  }
  const Tensor c = cpu::contiguous_as(*p, kDouble);
  std::copy_n(c.data_ptr<double>(), n, row.begin());
  return row;
}

// Row sums run in kLanes independent double accumulators, folded at the end: one running
// sum is a chain of dependent additions (4 cycles each), which the compiler may not reorder
// without -ffast-math; independent lanes vectorise and overlap.
constexpr int64_t kLanes = 8;

template <typename Lanes>
[[gnu::always_inline]] inline double fold(const Lanes& lanes) {
  double total = 0;
  for (int64_t k = 0; k < kLanes; ++k) total += lanes[k];
  return total;
}

// Note [Prefetching the next row]
// Each row is read from memory once, in its first pass, and then from L1; the hardware
// prefetchers did not keep that first pass fed (it stalled on its loads), so the pass over
// one row requests the next row's lines. Measured on 4096 x 1024 floats, one thread: the
// backward's ratio to LibTorch went from 0.72 to 0.93 (medians of 4 alternating runs).
// (The line is requested once per 8 elements: twice for floats, which costs next to nothing.)

// sum_j f(j) over [0, n), f giving a double. With `next`, requests next[0, n) into the
// cache on the way (see Note [Prefetching the next row]).
template <typename F, typename T = double>
[[gnu::always_inline]] inline double lane_sum(int64_t n, const F& f, const T* next = nullptr) {
  double lanes[kLanes] = {};
  int64_t j = 0;
  for (; j + kLanes <= n; j += kLanes) {
    if (next != nullptr) __builtin_prefetch(next + j);
    for (int64_t k = 0; k < kLanes; ++k) lanes[k] += f(j + k);
  }
  double tail = 0;
  for (; j < n; ++j) tail += f(j);
  return fold(lanes) + tail;
}

// Four doubles as one AVX2 register (two SSE2 ones without AVX2).
using Double4 = double __attribute__((vector_size(32)));
static_assert(kLanes == 8, "the backward's lanes are two Double4");

template <typename T>
[[gnu::always_inline]] inline Double4 load_double4(const T* p) {
  if constexpr (std::is_same_v<T, double>) {
    Double4 v;
    std::memcpy(&v, p, sizeof(Double4));
    return v;
  } else {
    return Double4{cpu::convert<double>(p[0]), cpu::convert<double>(p[1]), cpu::convert<double>(p[2]),
                   cpu::convert<double>(p[3])};
  }
}

template <typename T>
[[gnu::always_inline]] inline void store_double4(T* p, Double4 v) {
  if constexpr (std::is_same_v<T, double>) {
    std::memcpy(p, &v, sizeof(Double4));
  } else if constexpr (std::is_same_v<T, float>) {
    using Float4 = float __attribute__((vector_size(16)));
    const Float4 rounded = __builtin_convertvector(v, Float4);  // as convert<float>: to nearest
    std::memcpy(p, &rounded, sizeof(Float4));
  } else {
    for (int64_t k = 0; k < 4; ++k) p[k] = cpu::convert<T>(v[k]);
  }
}

// Rows per parallel task: enough elements to pay for a thread.
int64_t row_grain(int64_t n) { return std::max<int64_t>(1, cpu::kParallelGrain / std::max<int64_t>(n, 1)); }

// The forward of rows [begin, end): mean, rstd and the normalised, scaled row.
template <typename T>
[[gnu::always_inline]] inline void layer_norm_rows(const T* x, T* y, T* mean_out, T* rstd_out, const double* w,
                                                   const double* b, int64_t n, double eps, int64_t begin,
                                                   int64_t end) {
  for (int64_t row = begin; row < end; ++row) {
    const T* xr = x + row * n;
    const T* next_row = row + 1 < end ? xr + n : nullptr;
    const double mu =
        lane_sum(n, [&](int64_t j) { return cpu::convert<double>(xr[j]); }, next_row) / static_cast<double>(n);
    const double squares = lane_sum(n, [&](int64_t j) {
      const double centered = cpu::convert<double>(xr[j]) - mu;
      return centered * centered;
    });
    const double r = 1.0 / std::sqrt(squares / static_cast<double>(n) + eps);
    T* yr = y + row * n;
    for (int64_t j = 0; j < n; ++j) yr[j] = cpu::convert<T>((cpu::convert<double>(xr[j]) - mu) * r * w[j] + b[j]);
    mean_out[row] = cpu::convert<T>(mu);
    rstd_out[row] = cpu::convert<T>(r);
  }
}

// The same compiled for AVX2: the double arithmetic is compute-bound with two lanes (as is
// the backward's below).
template <typename T>
TG_TARGET_AVX2 void layer_norm_rows_avx2(const T* x, T* y, T* mean_out, T* rstd_out, const double* w,
                                         const double* b, int64_t n, double eps, int64_t begin, int64_t end) {
  layer_norm_rows(x, y, mean_out, rstd_out, w, b, n, eps, begin, end);
}

// The backward of rows [begin, end): grad_input's rows (when gx is not null), and each row's
// share of grad_weight and grad_bias added to dw and db. One pass per row gives the shares
// and both row sums, sum(g') and sum(g' x^), with x^ recomputed rather than stored; a second
// pass writes grad_input (as ATen's kernel). The earlier four passes through a stored x^, the
// first of them scalar, took 1.3-1.6x as long on 4096 x 1024 floats.
template <typename T>
[[gnu::always_inline]] inline void layer_norm_backward_rows(const T* __restrict x, const T* __restrict g,
                                                            const double* means, const double* rstds,
                                                            const double* __restrict w, T* __restrict gx,
                                                            double* __restrict dw, double* __restrict db, int64_t n,
                                                            int64_t begin, int64_t end) {
  for (int64_t row = begin; row < end; ++row) {
    const double mu = means[row], r = rstds[row];
    const T* xr = x + row * n;
    const T* gr = g + row * n;
    // Row sums in kLanes lanes, as lane_sum's (see there), held in two Double4: written
    // lane by lane, the loads of w and db after the store to dw (which could alias them, for
    // all the compiler knows) kept the loop scalar.
    Double4 gw_low = {}, gw_high = {}, gw_xhat_low = {}, gw_xhat_high = {};
    int64_t j = 0;
    const auto step = [&](int64_t at, Double4& gw_sum, Double4& gw_xhat_sum) {
      const Double4 gj = load_double4(gr + at);
      const Double4 x_hat = (load_double4(xr + at) - mu) * r;
      const Double4 gw = gj * load_double4(w + at);
      const Double4 dw_new = load_double4(dw + at) + gj * x_hat;
      const Double4 db_new = load_double4(db + at) + gj;
      std::memcpy(dw + at, &dw_new, sizeof(Double4));
      std::memcpy(db + at, &db_new, sizeof(Double4));
      gw_sum += gw;
      gw_xhat_sum += gw * x_hat;
    };
    for (; j + kLanes <= n; j += kLanes) {
      if (row + 1 < end) {  // see Note [Prefetching the next row]
        __builtin_prefetch(xr + n + j);
        __builtin_prefetch(gr + n + j);
      }
      step(j, gw_low, gw_xhat_low);
      step(j + 4, gw_high, gw_xhat_high);
    }
    double sum_gw[kLanes], sum_gw_xhat[kLanes];
    for (int64_t k = 0; k < 4; ++k) {
      sum_gw[k] = gw_low[k];
      sum_gw[k + 4] = gw_high[k];
      sum_gw_xhat[k] = gw_xhat_low[k];
      sum_gw_xhat[k + 4] = gw_xhat_high[k];
    }
    double tail_gw = 0, tail_gw_xhat = 0;
    for (; j < n; ++j) {
      const double gj = cpu::convert<double>(gr[j]);
      const double x_hat = (cpu::convert<double>(xr[j]) - mu) * r;
      dw[j] += gj * x_hat;
      db[j] += gj;
      const double gw = gj * w[j];
      tail_gw += gw;
      tail_gw_xhat += gw * x_hat;
    }
    if (gx == nullptr) continue;
    const double mean_g = (fold(sum_gw) + tail_gw) / static_cast<double>(n);
    const double mean_g_xhat = (fold(sum_gw_xhat) + tail_gw_xhat) / static_cast<double>(n);
    T* gxr = gx + row * n;
    int64_t jj = 0;
    for (; jj + 4 <= n; jj += 4) {  // as the loop below, four at a time (the same rounding)
      const Double4 x_hat = (load_double4(xr + jj) - mu) * r;
      const Double4 grad = r * (load_double4(gr + jj) * load_double4(w + jj) - mean_g - x_hat * mean_g_xhat);
      store_double4(gxr + jj, grad);
    }
    for (; jj < n; ++jj) {
      const double x_hat = (cpu::convert<double>(xr[jj]) - mu) * r;
      gxr[jj] = cpu::convert<T>(r * (cpu::convert<double>(gr[jj]) * w[jj] - mean_g - x_hat * mean_g_xhat));
    }
  }
}

template <typename T>
TG_TARGET_AVX2 void layer_norm_backward_rows_avx2(const T* x, const T* g, const double* means, const double* rstds,
                                                  const double* w, T* gx, double* dw, double* db, int64_t n,
                                                  int64_t begin, int64_t end) {
  layer_norm_backward_rows(x, g, means, rstds, w, gx, dw, db, n, begin, end);
}

}  // namespace

void native::layer_norm_out_cpu(const Tensor& input, IntArrayRef /*normalized_shape*/, const std::optional<Tensor>& weight,
                                const std::optional<Tensor>& bias, double eps, const Tensor& out, const Tensor& mean,
                                const Tensor& rstd) {
  // The meta function checked the arguments: out has input's shape, mean and rstd one
  // element per row.
  const ScalarType dtype = input.scalar_type();
  const int64_t m = mean.numel();
  const int64_t n = m == 0 ? 0 : input.numel() / m;
  if (n == 0) return;
  TG_DISPATCH_FLOATING_TYPES(dtype, "layer_norm", [&] {
    const Tensor x_t = cpu::contiguous_as(input, dtype);
    const scalar_t* x = x_t.data_ptr<scalar_t>();
    scalar_t* y = out.data_ptr<scalar_t>();
    scalar_t* mean_out = mean.data_ptr<scalar_t>();
    scalar_t* rstd_out = rstd.data_ptr<scalar_t>();
    const std::vector<double> w = parameter_row<scalar_t>(weight, n, 1.0, dtype);
    const std::vector<double> b = parameter_row<scalar_t>(bias, n, 0.0, dtype);
    const bool avx2 = cpu::vec::has_avx2_fma();
    cpu::parallel_for(m, row_grain(n), [&](int64_t begin, int64_t end) {
      if (avx2) {
        layer_norm_rows_avx2(x, y, mean_out, rstd_out, w.data(), b.data(), n, eps, begin, end);
      } else {
        layer_norm_rows(x, y, mean_out, rstd_out, w.data(), b.data(), n, eps, begin, end);
      }
    });
  });
}

std::tuple<Tensor, Tensor, Tensor> native::layer_norm_backward_cpu(
    const Tensor& grad_out, const Tensor& input, IntArrayRef normalized_shape, const Tensor& mean, const Tensor& rstd,
    const std::optional<Tensor>& weight, const std::optional<Tensor>& bias, std::array<bool, 3> output_mask) {
  const LayerNormShape shape =
      check_layer_norm_backward(grad_out, input, normalized_shape, mean, rstd, weight, bias);
  const ScalarType dtype = input.scalar_type();
  const int64_t m = shape.rows;
  const int64_t n = shape.row_size;
  // std::tie, not a structured binding: the lambdas below capture these, which clang before
  // 16 does not allow for bindings (the sanitized CI leg builds with clang 14).
  Tensor grad_input, grad_weight, grad_bias;
  std::tie(grad_input, grad_weight, grad_bias) = layer_norm_backward_outputs(input, normalized_shape, output_mask);
  if (n == 0) return {grad_input, grad_weight, grad_bias};
  TG_DISPATCH_FLOATING_TYPES(dtype, "layer_norm_backward", [&] {
    const Tensor x_t = cpu::contiguous_as(input, dtype);
    const Tensor g_t = cpu::contiguous_as(grad_out, dtype);
    const Tensor mean_t = cpu::contiguous_as(mean, kDouble);
    const Tensor rstd_t = cpu::contiguous_as(rstd, kDouble);
    const scalar_t* x = x_t.data_ptr<scalar_t>();
    const scalar_t* g = g_t.data_ptr<scalar_t>();
    const double* means = mean_t.data_ptr<double>();
    const double* rstds = rstd_t.data_ptr<double>();
    const std::vector<double> w = parameter_row<scalar_t>(weight, n, 1.0, dtype);
    // grad_weight and grad_bias sum over rows: each block of rows (one per thread, fewer for
    // small inputs) sums into its own partial row, and the partials are added in block
    // order, so the result does not depend on which thread ran which block.
    const int64_t blocks = std::clamp<int64_t>(m * n / cpu::kParallelGrain, 1, std::max<int64_t>(1, get_num_threads()));
    std::vector<std::vector<double>> dw(static_cast<size_t>(blocks)), db(static_cast<size_t>(blocks));
    const bool avx2 = cpu::vec::has_avx2_fma();
    cpu::parallel_for(blocks, 1, [&](int64_t block_begin, int64_t block_end) {
      for (int64_t block = block_begin; block < block_end; ++block) {
        std::vector<double>& dw_block = dw[static_cast<size_t>(block)];
        std::vector<double>& db_block = db[static_cast<size_t>(block)];
        dw_block.assign(static_cast<size_t>(n), 0.0);
        db_block.assign(static_cast<size_t>(n), 0.0);
        const int64_t begin = block * m / blocks, end = (block + 1) * m / blocks;
        scalar_t* gx = output_mask[0] ? grad_input.data_ptr<scalar_t>() : nullptr;
        if (avx2) {
          layer_norm_backward_rows_avx2(x, g, means, rstds, w.data(), gx, dw_block.data(), db_block.data(), n, begin,
                                        end);
        } else {
          layer_norm_backward_rows(x, g, means, rstds, w.data(), gx, dw_block.data(), db_block.data(), n, begin, end);
        }
      }
    });
    for (int64_t block = 1; block < blocks; ++block) {
      for (int64_t j = 0; j < n; ++j) {
        dw[0][j] += dw[static_cast<size_t>(block)][j];
        db[0][j] += db[static_cast<size_t>(block)][j];
      }
    }
    const int64_t item = sizeof(scalar_t);
    if (output_mask[1]) cpu::store_row(static_cast<char*>(grad_weight.data_ptr()), item, dtype, dw[0].data(), n);
    if (output_mask[2]) cpu::store_row(static_cast<char*>(grad_bias.data_ptr()), item, dtype, db[0].data(), n);
  });
  return {grad_input, grad_weight, grad_bias};
}

}  // namespace tg
