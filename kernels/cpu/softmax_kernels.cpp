// CPU kernels of softmax and log_softmax along one dim, and of their backward operators:
//   softmax:      y = exp(x - max) / sum(exp(x - max))
//   log_softmax:  y = x - max - log(sum(exp(x - max)))
//   backward:     softmax  gx = y * (g - sum(g * y));  log_softmax  gx = g - exp(y) * sum(g)
// (sums along dim). Inputs are made contiguous and seen as [outer, size, inner] blocks
// (dim_blocks.h); for inner > 1 a whole [size, inner] block is processed row by row so
// that memory is read in order and the inner loops are contiguous.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "NativeFunctions.h"
#include "core/wrap_dim.h"
#include "cpu/convert.h"
#include "cpu/copy.h"
#include "cpu/parallel.h"
#include "cpu/vec.h"
#include "dim_blocks.h"
#include "dtype_dispatch.h"
#include "nn_rules.h"
#include "scalar_math.h"

namespace tg {

namespace {

namespace vec = cpu::vec;

// The grain of parallel_for over blocks of `block` elements: about kParallelGrain elements.
int64_t rows_per_thread_grain(int64_t block) { return std::max<int64_t>(1, cpu::kParallelGrain / std::max<int64_t>(block, 1)); }

// One [size, inner] block of the forward: in and out point at element (o, 0, 0).
template <bool kLog, typename scalar_t>
void softmax_block(const scalar_t* in, scalar_t* out, int64_t size, int64_t inner, std::vector<double>& max,
                   std::vector<double>& sum) {
  using T = opmath_t<scalar_t>;
  max.assign(static_cast<size_t>(inner), -std::numeric_limits<double>::infinity());
  sum.assign(static_cast<size_t>(inner), 0.0);
  for (int64_t k = 0; k < size; ++k) {
    const scalar_t* row = in + k * inner;
    for (int64_t i = 0; i < inner; ++i) max[i] = math::max_propagate_nan(max[i], cpu::convert<double>(row[i]));
  }
  for (int64_t k = 0; k < size; ++k) {
    const scalar_t* row = in + k * inner;
    scalar_t* out_row = out + k * inner;
    for (int64_t i = 0; i < inner; ++i) {
      const T e = std::exp(cpu::convert<T>(row[i]) - T(max[i]));
      sum[i] += e;
      if constexpr (!kLog) out_row[i] = cpu::convert<scalar_t>(e);
    }
  }
  for (int64_t k = 0; k < size; ++k) {
    const scalar_t* row = in + k * inner;
    scalar_t* out_row = out + k * inner;
    for (int64_t i = 0; i < inner; ++i) {
      if constexpr (kLog) {
        out_row[i] = cpu::convert<scalar_t>(cpu::convert<T>(row[i]) - T(max[i]) - T(std::log(sum[i])));
      } else {
        out_row[i] = cpu::convert<scalar_t>(cpu::convert<T>(out_row[i]) * T(1.0 / sum[i]));
      }
    }
  }
}

// The contiguous-row case (softmax over the last dim): one pass for the max, one for the sum.
template <bool kLog, typename scalar_t>
void softmax_row(const scalar_t* in, scalar_t* out, int64_t size) {
  using T = opmath_t<scalar_t>;
  T max = -std::numeric_limits<T>::infinity();
  for (int64_t k = 0; k < size; ++k) max = math::max_propagate_nan(max, cpu::convert<T>(in[k]));
  double sum = 0;
  for (int64_t k = 0; k < size; ++k) {
    const T e = std::exp(cpu::convert<T>(in[k]) - max);
    sum += e;
    if constexpr (!kLog) out[k] = cpu::convert<scalar_t>(e);
  }
  if constexpr (kLog) {
    const T shift = max + T(std::log(sum));
    for (int64_t k = 0; k < size; ++k) out[k] = cpu::convert<scalar_t>(cpu::convert<T>(in[k]) - shift);
  } else {
    const T scale = T(1.0 / sum);
    for (int64_t k = 0; k < size; ++k) out[k] = cpu::convert<scalar_t>(cpu::convert<T>(out[k]) * scale);
  }
}

// The same for float rows, kLanes<V> at a time with the vector exp of x - max <= 0
// (vec::exp_of_nonpositive, cpu/vec.h: outputs under FLT_MIN / sum are 0). Padding
// lanes hold -inf: they leave the max unchanged and add exp(-inf) = 0 to the sum. The max
// skips NaNs (vec::max_skipping_nan): a NaN input makes the sum, and so every output of its
// row, NaN all the same. It keeps four vectors of maxima, and the sum two: one chain of
// maxps would wait on each one's latency.
template <bool kLog, typename V>
TG_VEC_INLINE void softmax_row_float(const float* in, float* out, int64_t size) {
  constexpr int64_t kLanes = vec::kLanes<V>;
  constexpr float kNegInf = -std::numeric_limits<float>::infinity();
  const int64_t tail = size % kLanes, whole = size - tail;
  V max0 = vec::broadcast<V>(kNegInf), max1 = max0, max2 = max0, max3 = max0;
  int64_t k = 0;
  for (; k + 4 * kLanes <= whole; k += 4 * kLanes) {
    max0 = vec::max_skipping_nan(max0, vec::load<V>(in + k));
    max1 = vec::max_skipping_nan(max1, vec::load<V>(in + k + kLanes));
    max2 = vec::max_skipping_nan(max2, vec::load<V>(in + k + 2 * kLanes));
    max3 = vec::max_skipping_nan(max3, vec::load<V>(in + k + 3 * kLanes));
  }
  for (; k < whole; k += kLanes) max0 = vec::max_skipping_nan(max0, vec::load<V>(in + k));
  if (tail > 0) max0 = vec::max_skipping_nan(max0, vec::load_partial<V>(in + whole, tail, kNegInf));
  const float max =
      vec::horizontal_max(vec::max_skipping_nan(vec::max_skipping_nan(max0, max1), vec::max_skipping_nan(max2, max3)));
  V sum0{}, sum1{};
  k = 0;
  for (; k + 2 * kLanes <= whole; k += 2 * kLanes) {
    const V e0 = vec::exp_of_nonpositive(vec::load<V>(in + k) - max);
    const V e1 = vec::exp_of_nonpositive(vec::load<V>(in + k + kLanes) - max);
    sum0 += e0;
    sum1 += e1;
    if constexpr (!kLog) {
      vec::store(out + k, e0);
      vec::store(out + k + kLanes, e1);
    }
  }
  for (; k < whole; k += kLanes) {
    const V e = vec::exp_of_nonpositive(vec::load<V>(in + k) - max);
    sum0 += e;
    if constexpr (!kLog) vec::store(out + k, e);
  }
  if (tail > 0) {
    const V e = vec::exp_of_nonpositive(vec::load_partial<V>(in + whole, tail, kNegInf) - max);
    sum1 += e;
    if constexpr (!kLog) vec::store_partial(out + whole, e, tail);
  }
  const double sum = vec::horizontal_sum(sum0) + vec::horizontal_sum(sum1);
  if constexpr (kLog) {
    const float shift = max + static_cast<float>(std::log(sum));
    for (int64_t k = 0; k < size; ++k) out[k] = in[k] - shift;
  } else {
    const float scale = static_cast<float>(1.0 / sum);
    for (int64_t k = 0; k < size; ++k) out[k] *= scale;
  }
}

// One float row of the backward (dim innermost), kLanes<V> at a time.
template <bool kLog, typename V>
TG_VEC_INLINE void softmax_backward_row_float(const float* g, const float* y, float* gx, int64_t size) {
  constexpr int64_t kLanes = vec::kLanes<V>;
  const int64_t tail = size % kLanes, whole = size - tail;
  V dot_lanes{};
  for (int64_t k = 0; k < whole; k += kLanes) {
    dot_lanes += kLog ? vec::load<V>(g + k) : vec::load<V>(g + k) * vec::load<V>(y + k);
  }
  double dot = vec::horizontal_sum(dot_lanes);
  for (int64_t k = whole; k < size; ++k) dot += kLog ? g[k] : g[k] * y[k];
  const float d = static_cast<float>(dot);
  if constexpr (kLog) {
    for (int64_t k = 0; k < whole; k += kLanes) {
      vec::store(gx + k, vec::load<V>(g + k) - vec::exp(vec::load<V>(y + k)) * d);
    }
    if (tail > 0) {
      const V gv = vec::load_partial<V>(g + whole, tail, 0.0f), yv = vec::load_partial<V>(y + whole, tail, 0.0f);
      vec::store_partial(gx + whole, gv - vec::exp(yv) * d, tail);
    }
  } else {
    for (int64_t k = 0; k < size; ++k) gx[k] = y[k] * (g[k] - d);
  }
}

// Float rows [begin, end) of `size` elements, forward and backward, with the widest vector
// the CPU runs (16 lanes with AVX-512, 8 with AVX2 and FMA, else 4: vec::with_widest_vec).
template <bool kLog>
void softmax_rows_float(const float* in, float* out, int64_t begin, int64_t end, int64_t size) {
  vec::with_widest_vec([&]<typename V>() TG_VEC_LAMBDA {
    for (int64_t o = begin; o < end; ++o) softmax_row_float<kLog, V>(in + o * size, out + o * size, size);
  });
}
template <bool kLog>
void softmax_backward_rows_float(const float* g, const float* y, float* gx, int64_t begin, int64_t end, int64_t size) {
  vec::with_widest_vec([&]<typename V>() TG_VEC_LAMBDA {
    for (int64_t o = begin; o < end; ++o) {
      softmax_backward_row_float<kLog, V>(g + o * size, y + o * size, gx + o * size, size);
    }
  });
}

template <bool kLog>
void softmax_forward(const char* op, const Tensor& self, int64_t dim, bool half_to_float, const Tensor& out) {
  check_no_half_to_float(op, half_to_float);
  const DimBlocks b = blocks_around(self.sizes(), maybe_wrap_dim(dim, self.dim(), op));
  if (self.numel() == 0) return;
  TG_DISPATCH_FLOATING_TYPES(out.scalar_type(), op, [&] {
    const Tensor input = cpu::contiguous_as(self, out.scalar_type());
    const scalar_t* in = input.data_ptr<scalar_t>();
    scalar_t* dst = out.data_ptr<scalar_t>();
    const int64_t block = b.size * b.inner;
    cpu::parallel_for(b.outer, rows_per_thread_grain(block), [&](int64_t begin, int64_t end) {
      if (b.inner == 1) {
        if constexpr (std::is_same_v<scalar_t, float>) {
          softmax_rows_float<kLog>(in, dst, begin, end, b.size);
        } else {
          for (int64_t o = begin; o < end; ++o) softmax_row<kLog>(in + o * block, dst + o * block, b.size);
        }
        return;
      }
      std::vector<double> max, sum;
      for (int64_t o = begin; o < end; ++o) {
        softmax_block<kLog>(in + o * block, dst + o * block, b.size, b.inner, max, sum);
      }
    });
  });
}

// gx = y * (g - dot) for softmax, g - exp(y) * dot for log_softmax, where dot is
// sum(g * y), resp. sum(g), along the dim.
template <bool kLog>
void softmax_backward(const char* op, const Tensor& grad_output, const Tensor& output, int64_t dim,
                      const Tensor& grad_input) {
  const DimBlocks b = blocks_around(output.sizes(), maybe_wrap_dim(dim, output.dim(), op));
  if (output.numel() == 0) return;
  TG_DISPATCH_FLOATING_TYPES(grad_input.scalar_type(), op, [&] {
    using T = opmath_t<scalar_t>;
    const Tensor g_t = cpu::contiguous_as(grad_output, grad_input.scalar_type());
    const Tensor y_t = cpu::contiguous_as(output, grad_input.scalar_type());
    const scalar_t* g = g_t.data_ptr<scalar_t>();
    const scalar_t* y = y_t.data_ptr<scalar_t>();
    scalar_t* gx = grad_input.data_ptr<scalar_t>();
    const int64_t block = b.size * b.inner;
    cpu::parallel_for(b.outer, rows_per_thread_grain(block), [&](int64_t begin, int64_t end) {
      if constexpr (std::is_same_v<scalar_t, float>) {
        if (b.inner == 1) {
          softmax_backward_rows_float<kLog>(g, y, gx, begin, end, b.size);
          return;
        }
      }
      std::vector<double> dot(static_cast<size_t>(b.inner));
      for (int64_t o = begin; o < end; ++o) {
        const int64_t base = o * block;
        std::fill(dot.begin(), dot.end(), 0.0);
        for (int64_t k = 0; k < b.size; ++k) {
          const int64_t at = base + k * b.inner;
          for (int64_t i = 0; i < b.inner; ++i) {
            const T gi = cpu::convert<T>(g[at + i]);
            dot[i] += kLog ? gi : gi * cpu::convert<T>(y[at + i]);
          }
        }
        for (int64_t k = 0; k < b.size; ++k) {
          const int64_t at = base + k * b.inner;
          for (int64_t i = 0; i < b.inner; ++i) {
            const T gi = cpu::convert<T>(g[at + i]), yi = cpu::convert<T>(y[at + i]), d = T(dot[i]);
            gx[at + i] = cpu::convert<scalar_t>(kLog ? gi - std::exp(yi) * d : yi * (gi - d));
          }
        }
      }
    });
  });
}

}  // namespace

void native::softmax_out_cpu(const Tensor& self, int64_t dim, bool half_to_float, const Tensor& out) {
  softmax_forward<false>("softmax", self, dim, half_to_float, out);
}

void native::log_softmax_out_cpu(const Tensor& self, int64_t dim, bool half_to_float, const Tensor& out) {
  softmax_forward<true>("log_softmax", self, dim, half_to_float, out);
}

void native::softmax_backward_data_out_cpu(const Tensor& grad_output, const Tensor& output, int64_t dim,
                                           ScalarType /*input_dtype*/, const Tensor& grad_input) {
  softmax_backward<false>("softmax_backward", grad_output, output, dim, grad_input);
}

void native::log_softmax_backward_data_out_cpu(const Tensor& grad_output, const Tensor& output, int64_t dim,
                                               ScalarType /*input_dtype*/, const Tensor& grad_input) {
  softmax_backward<true>("log_softmax_backward", grad_output, output, dim, grad_input);
}

}  // namespace tg
