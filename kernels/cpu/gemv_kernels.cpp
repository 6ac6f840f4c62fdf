#include "cpu/gemv.h"

#include <algorithm>
#include <vector>

#include "cpu/parallel.h"
#include "cpu/vec.h"

namespace tg::cpu {

// Note [GEMV order]
// Every output has one fixed summation order, whatever the thread count or the block of
// outputs it is computed with, so the result depends on the operands' layout and the CPU
// capability (vec.h) only, not on how the work was split:
// - b transposed (unit row stride, linear's weight.t()): a dot product of x with the
//   contiguous weight row: lane l of one vector accumulator sums the products p = l (mod
//   lanes) in order, the lanes are folded pairwise (l + lanes/2 into l, ...), then the tail
//   products p >= a multiple of lanes are added in order.
// - b row-major (unit column stride): sum over p in order, one lane per output.
// Then c[j] = alpha * sum (+ beta * c[j]), as the reference gemm does. Outputs are split over
// threads only when the product is large (kGemvParallelWork multiply-adds): below that,
// waking threads costs more than the product. The AVX2 build of each loop is the same code,
// so the 4- and 8-lane paths differ only by the lane count (and FMA contraction).

namespace {

constexpr int64_t kGemvParallelWork = int64_t{1} << 21;
constexpr int64_t kRowsPerStep = 4;  // dot products computed together, sharing x's loads

template <typename V>
[[gnu::always_inline]] inline float fold_lanes(V v) {
  for (int64_t width = vec::kLanes<V> / 2; width > 0; width /= 2) {
    for (int64_t l = 0; l < width; ++l) v[l] += v[l + width];
  }
  return v[0];
}

[[gnu::always_inline]] inline float epilogue(float sum, const float* c, float alpha, float beta) {
  float value = alpha * sum;
  if (beta != 0.0f) value += beta * *c;
  return value;
}

// Outputs [begin, end) of the dot form; x contiguous, weight row j at w + j * ld.
template <typename V>
[[gnu::always_inline]] inline void dot_rows(const float* x, const float* w, int64_t ld, int64_t k, float* c,
                                            float alpha, float beta, int64_t begin, int64_t end) {
  constexpr int64_t L = vec::kLanes<V>;
  const int64_t body = k / L * L;
  int64_t j = begin;
  for (; j + kRowsPerStep <= end; j += kRowsPerStep) {
    const float* r0 = w + j * ld;
    const float* r1 = r0 + ld;
    const float* r2 = r1 + ld;
    const float* r3 = r2 + ld;
    V a0{}, a1{}, a2{}, a3{};
    for (int64_t p = 0; p < body; p += L) {
      const V xv = vec::load<V>(x + p);
      a0 += xv * vec::load<V>(r0 + p);
      a1 += xv * vec::load<V>(r1 + p);
      a2 += xv * vec::load<V>(r2 + p);
      a3 += xv * vec::load<V>(r3 + p);
    }
    float s[kRowsPerStep] = {fold_lanes(a0), fold_lanes(a1), fold_lanes(a2), fold_lanes(a3)};
    for (int64_t p = body; p < k; ++p) {
      s[0] += x[p] * r0[p];
      s[1] += x[p] * r1[p];
      s[2] += x[p] * r2[p];
      s[3] += x[p] * r3[p];
    }
    for (int64_t r = 0; r < kRowsPerStep; ++r) c[j + r] = epilogue(s[r], c + j + r, alpha, beta);
  }
  for (; j < end; ++j) {
    const float* r0 = w + j * ld;
    V a0{};
    for (int64_t p = 0; p < body; p += L) a0 += vec::load<V>(x + p) * vec::load<V>(r0 + p);
    float s = fold_lanes(a0);
    for (int64_t p = body; p < k; ++p) s += x[p] * r0[p];
    c[j] = epilogue(s, c + j, alpha, beta);
  }
}

// Outputs [begin, end) of the row-major form: rows of b at b + p * ld, unit column stride.
template <typename V>
[[gnu::always_inline]] inline void axpy_columns(const float* x, int64_t x_stride, const float* b, int64_t ld,
                                                int64_t k, float* c, float alpha, float beta, int64_t begin,
                                                int64_t end) {
  constexpr int64_t L = vec::kLanes<V>;
  constexpr int64_t kBlock = 4 * L;
  int64_t j = begin;
  for (; j + kBlock <= end; j += kBlock) {
    V a0{}, a1{}, a2{}, a3{};
    for (int64_t p = 0; p < k; ++p) {
      const V xv = vec::broadcast<V>(x[p * x_stride]);
      const float* row = b + p * ld + j;
      a0 += xv * vec::load<V>(row);
      a1 += xv * vec::load<V>(row + L);
      a2 += xv * vec::load<V>(row + 2 * L);
      a3 += xv * vec::load<V>(row + 3 * L);
    }
    const V acc[4] = {a0, a1, a2, a3};
    for (int64_t l = 0; l < kBlock; ++l) c[j + l] = epilogue(acc[l / L][l % L], c + j + l, alpha, beta);
  }
  for (; j < end; j += L) {
    const int64_t width = std::min(L, end - j);
    V a0{};
    for (int64_t p = 0; p < k; ++p) {
      a0 += vec::broadcast<V>(x[p * x_stride]) * vec::load_partial<V>(b + p * ld + j, width, 0.0f);
    }
    for (int64_t l = 0; l < width; ++l) c[j + l] = epilogue(a0[l], c + j + l, alpha, beta);
  }
}

template <typename V>
void dot_rows_range(const float* x, const float* w, int64_t ld, int64_t k, float* c, float alpha, float beta,
                    int64_t begin, int64_t end) {
  dot_rows<V>(x, w, ld, k, c, alpha, beta, begin, end);
}
TG_TARGET_AVX2 void dot_rows_avx2(const float* x, const float* w, int64_t ld, int64_t k, float* c, float alpha,
                                  float beta, int64_t begin, int64_t end) {
  dot_rows<vec::Vec8>(x, w, ld, k, c, alpha, beta, begin, end);
}
template <typename V>
void axpy_columns_range(const float* x, int64_t x_stride, const float* b, int64_t ld, int64_t k, float* c,
                        float alpha, float beta, int64_t begin, int64_t end) {
  axpy_columns<V>(x, x_stride, b, ld, k, c, alpha, beta, begin, end);
}
TG_TARGET_AVX2 void axpy_columns_avx2(const float* x, int64_t x_stride, const float* b, int64_t ld, int64_t k,
                                      float* c, float alpha, float beta, int64_t begin, int64_t end) {
  axpy_columns<vec::Vec8>(x, x_stride, b, ld, k, c, alpha, beta, begin, end);
}

// Splits the outputs over threads for large products, in blocks that keep every thread's
// range a multiple of `align` outputs (so the blocking of the vector loops is unchanged).
template <typename F>
void for_outputs(int64_t n, int64_t k, int64_t align, const F& body) {
  if (n * std::max<int64_t>(k, 1) < kGemvParallelWork) {
    body(int64_t{0}, n);
    return;
  }
  const int64_t blocks = (n + align - 1) / align;
  const int64_t grain = std::max<int64_t>(1, kGemvParallelWork / (align * std::max<int64_t>(k, 1)));
  parallel_for(blocks, grain, [&](int64_t b0, int64_t b1) { body(b0 * align, std::min(n, b1 * align)); });
}

}  // namespace

bool gemv_float(const float* x, int64_t x_stride, const float* b, int64_t b_row_stride, int64_t b_col_stride,
                int64_t k, int64_t n, float* c, float alpha, float beta) {
  const bool avx2 = vec::has_avx2_fma();
  if (b_row_stride == 1 || k == 1) {  // b = w.t(), w row-major [n, k] with row stride b_col_stride
    std::vector<float> packed_x;
    if (x_stride != 1 && k > 1) {
      packed_x.resize(static_cast<size_t>(k));
      for (int64_t p = 0; p < k; ++p) packed_x[static_cast<size_t>(p)] = x[p * x_stride];
      x = packed_x.data();
    }
    for_outputs(n, k, kRowsPerStep, [&](int64_t begin, int64_t end) {
      if (avx2) {
        dot_rows_avx2(x, b, b_col_stride, k, c, alpha, beta, begin, end);
      } else {
        dot_rows_range<vec::Vec4>(x, b, b_col_stride, k, c, alpha, beta, begin, end);
      }
    });
    return true;
  }
  if (b_col_stride == 1 || n == 1) {
    for_outputs(n, k, 4 * vec::kLanes<vec::Vec8>, [&](int64_t begin, int64_t end) {
      if (avx2) {
        axpy_columns_avx2(x, x_stride, b, b_row_stride, k, c, alpha, beta, begin, end);
      } else {
        axpy_columns_range<vec::Vec4>(x, x_stride, b, b_row_stride, k, c, alpha, beta, begin, end);
      }
    });
    return true;
  }
  return false;
}

}  // namespace tg::cpu
