// Products whose left operand has at most one nonzero per row: c[i, :] = a[i, p_i] * b[p_i, :].
//
// Note [One-hot rows]: such a left operand selects and scales rows of the right one, so the
// product is a gather of n values per row where a dense product does k multiply-adds per value.
// These operands are common: a one-hot encoding times a table (an embedding written as a
// product), permutation and diagonal matrices, and the standard basis that jacrev and jacfwd
// push through a function: in vmap(vjp) over the identity, the first product of the backward
// pass multiplies diag(f'(y)) by a weight, a dense 256^3 sgemm in the benchmark's 256 -> 256
// MLP where the gather writes 256^2 values. The check is cheap: it stops at the first row with
// two nonzeros, which for a dense operand is its first two elements.
//
// Exactness: the result is the dense product's. A dense sum also adds 0 * b[p, j] for every
// other p, which is NaN when b[p, j] is infinite or NaN, so the gather is taken only when every
// element of b is finite (one pass over b, made only once a has passed). Sum of one product and
// zeros: the product itself, except that BLAS starts its sums at +0, so -0 becomes +0 (adding
// +0 does the same here). alpha scales the product as BLAS does (alpha * (a * b)); beta == 0
// does not read c.
#pragma once

#include <algorithm>
#include <bit>
#include <climits>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "cpu/parallel.h"

namespace tg::cpu {

// A strided matrix view: element (i, j) is data[i * row_stride + j * col_stride].
template <typename T>
struct StridedMatrix {
  const T* data;
  int64_t rows, cols, row_stride, col_stride;
  T operator()(int64_t i, int64_t j) const { return data[i * row_stride + j * col_stride]; }
};

// The number of nonzeros among x[0], x[stride], ..., x[(n - 1) * stride] (NaN counts), in
// lanes of the element's width so that the contiguous loop vectorises.
template <typename T>
int64_t count_nonzeros(const T* x, int64_t n, int64_t stride) {
  using Count = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
  Count count = 0;
  if (stride == 1) {
    for (int64_t j = 0; j < n; ++j) count += static_cast<Count>(x[j] != T(0));
  } else {
    for (int64_t j = 0; j < n; ++j) count += static_cast<Count>(x[j * stride] != T(0));
  }
  return static_cast<int64_t>(count);
}

// The column of each row's nonzero (-1 for a row of zeros), or false as soon as a row holds
// two nonzeros. Nothing is allocated before the first row passes: a dense operand, the usual
// case on every product, costs only its first row's scan.
template <typename T>
bool one_hot_columns(const StridedMatrix<T>& a, std::vector<int64_t>& columns) {
  columns.clear();
  for (int64_t i = 0; i < a.rows; ++i) {
    const T* row = a.data + i * a.row_stride;
    const int64_t count = count_nonzeros(row, a.cols, a.col_stride);
    if (count > 1) return false;
    if (i == 0) columns.reserve(static_cast<size_t>(a.rows));
    int64_t p = -1;
    if (count == 1) {
      p = 0;
      while (row[p * a.col_stride] == T(0)) ++p;
    }
    columns.push_back(p);
  }
  return true;
}

// Whether x[0], x[stride], ..., x[(n - 1) * stride] are all finite: an exponent of all ones is
// an infinity or a NaN. Integer tests, so that the contiguous loop vectorises.
template <typename T>
bool finite_run(const T* x, int64_t n, int64_t stride) {
  using Bits = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
  constexpr Bits kExponent = static_cast<Bits>(sizeof(T) == 4 ? 0x7f800000ull : 0x7ff0000000000000ull);
  Bits bad = 0;
  for (int64_t j = 0; j < n; ++j) {
    const Bits bits = std::bit_cast<Bits>(x[j * stride]);
    bad |= static_cast<Bits>((bits & kExponent) == kExponent);
  }
  return bad == 0;
}

template <typename T>
bool all_finite(const StridedMatrix<T>& b) {
  // Along whichever dimension is contiguous.
  const bool by_rows = b.col_stride == 1 || b.row_stride != 1;
  const int64_t runs = by_rows ? b.rows : b.cols, length = by_rows ? b.cols : b.rows;
  const int64_t run_stride = by_rows ? b.row_stride : b.col_stride, step = by_rows ? b.col_stride : b.row_stride;
  for (int64_t r = 0; r < runs; ++r) {
    if (!finite_run(b.data + r * run_stride, length, step)) return false;
  }
  return true;
}

// c = alpha * a @ b + beta * c (c contiguous [a.rows, b.cols]) when a has one-hot rows and b
// is finite; false, with c untouched, otherwise. See Note [One-hot rows].
template <typename T>
bool one_hot_rows_product(const StridedMatrix<T>& a, const StridedMatrix<T>& b, T* c, T alpha, T beta) {
  std::vector<int64_t> columns;
  // k == 0: an empty sum, and the operands may have no storage (null data) to offset.
  if (a.cols == 0 || a.cols > INT32_MAX || !one_hot_columns(a, columns) || !all_finite(b)) return false;
  const int64_t n = b.cols;
  const int64_t grain = std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(n, 1));
  parallel_for(a.rows, grain, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      T* out = c + i * n;
      const int64_t p = columns[static_cast<size_t>(i)];
      const T a_ip = p >= 0 ? a(i, p) : T(0);
      const T* row = b.data + (p >= 0 ? p : 0) * b.row_stride;
      const int64_t stride = b.col_stride;
      if (alpha == T(1) && beta == T(0)) {
        for (int64_t j = 0; j < n; ++j) out[j] = p >= 0 ? a_ip * row[j * stride] + T(0) : T(0);
        continue;
      }
      for (int64_t j = 0; j < n; ++j) {
        const T scaled = alpha * (p >= 0 ? a_ip * row[j * stride] + T(0) : T(0));
        out[j] = beta == T(0) ? scaled : scaled + beta * out[j];
      }
    }
  });
  return true;
}

}  // namespace tg::cpu
