// CPU kernels of the matrix products: mm, bmm, addmm.
// float and double go to BLAS (cpu::blas_gemm, split over tensorgen's threads) when the build
// has it (TG_HAVE_BLAS); every other dtype, and every build without BLAS, uses the reference
// loop. Integer products wrap modulo 2^bits like the other integer kernels; float16 and
// bfloat16 accumulate in float.
// A float product with one row (m = 1) is a matrix-vector product: cpu::gemv_float (gemv.h),
// with or without BLAS. Each product is one launch (cpu/launch.h).
#include <algorithm>
#include <array>
#include <climits>
#include <cstdint>
#include <optional>
#include <type_traits>
#include <vector>

#include "NativeFunctions.h"
#include "cpu/blas_gemm.h"
#include "cpu/convert.h"
#include "cpu/copy.h"
#include "cpu/gemv.h"
#include "cpu/launch.h"
#include "cpu/one_hot_rows.h"
#include "cpu/parallel.h"
#include "dtype_dispatch.h"
#include "scalar_math.h"

#if defined(__SSE2__)
#include <immintrin.h>
#endif

namespace tg {

namespace {

// A strided matrix: element (i, j) is data[i * row_stride + j * col_stride].
template <typename T>
using Matrix = cpu::StridedMatrix<T>;

// Matrix `batch` of a 3-d tensor, or the matrix of a 2-d one (batch 0).
template <typename T>
Matrix<T> matrix_of(const Tensor& t, int64_t batch) {
  const int64_t d = t.dim();
  const T* data = t.data_ptr<T>();
  // An operand with a zero-size dim may have no storage (a null data pointer): nothing is read
  // from it, and offsetting a null pointer is undefined behaviour.
  const T* base = t.numel() == 0 ? data : data + (d == 3 ? batch * t.strides()[0] : 0);
  return Matrix<T>{base, t.sizes()[d - 2], t.sizes()[d - 1], t.strides()[d - 2], t.strides()[d - 1]};
}

// How BLAS can read a strided matrix: stored row-major (no transpose) or as the transpose of
// a row-major matrix, with its leading dimension. False when neither layout fits.
struct BlasLayout {
  bool transposed = false;
  int64_t ld = 0;
};

bool blas_layout(int64_t rows, int64_t cols, int64_t row_stride, int64_t col_stride, BlasLayout* layout) {
  if ((cols == 1 || col_stride == 1) && (rows == 1 || row_stride >= std::max<int64_t>(cols, 1))) {
    *layout = BlasLayout{false, rows == 1 ? std::max<int64_t>(cols, 1) : row_stride};
  } else if ((rows == 1 || row_stride == 1) && (cols == 1 || col_stride >= std::max<int64_t>(rows, 1))) {
    *layout = BlasLayout{true, cols == 1 ? std::max<int64_t>(rows, 1) : col_stride};
  } else {
    return false;
  }
  return layout->ld <= INT_MAX;
}

// The operand itself when BLAS can read each of its matrices, else a contiguous copy.
Tensor blas_readable(const Tensor& t) {
  const int64_t d = t.dim();
  BlasLayout layout;
  if (blas_layout(t.sizes()[d - 2], t.sizes()[d - 1], t.strides()[d - 2], t.strides()[d - 1], &layout)) return t;
  return cpu::contiguous_copy(t);
}

// The elements of a strided matrix converted to Acc, contiguous and row-major.
template <typename Acc, typename T>
std::vector<Acc> converted(const Matrix<T>& x) {
  std::vector<Acc> result(static_cast<size_t>(x.rows * x.cols));
  for (int64_t i = 0; i < x.rows; ++i) {
    for (int64_t j = 0; j < x.cols; ++j) result[i * x.cols + j] = cpu::convert<Acc>(x(i, j));
  }
  return result;
}

// c = alpha * a @ b + beta * c, c contiguous [a.rows, b.cols]; beta == 0 ignores c's values.
// The operands are converted to the accumulation type once, so the inner loop is a plain
// row update the compiler vectorises.
template <typename T>
void gemm_reference(const Matrix<T>& a, const Matrix<T>& b, T* c, const Scalar& alpha_value,
                    const Scalar& beta_value) {
  using Acc = std::conditional_t<std::is_integral_v<T>, int64_t, opmath_t<T>>;
  const Acc alpha = alpha_value.to<Acc>();
  const Acc beta = beta_value.to<Acc>();
  const bool use_c = beta != Acc(0);
  const int64_t k = a.cols, n = b.cols;
  const std::vector<Acc> a_acc = converted<Acc>(a), b_acc = converted<Acc>(b);
  std::vector<Acc> row(static_cast<size_t>(n));
  for (int64_t i = 0; i < a.rows; ++i) {
    std::fill(row.begin(), row.end(), Acc(0));
    for (int64_t p = 0; p < k; ++p) {
      const Acc a_ip = a_acc[i * k + p];
      const Acc* b_p = b_acc.data() + p * n;
      for (int64_t j = 0; j < n; ++j) row[j] = math::add(row[j], math::mul(a_ip, b_p[j]));
    }
    T* out = c + i * n;
    for (int64_t j = 0; j < n; ++j) {
      Acc value = math::mul(alpha, row[j]);
      if (use_c) value = math::add(value, math::mul(beta, cpu::convert<Acc>(out[j])));
      out[j] = cpu::convert<T>(value);
    }
  }
}

// Note [Rank-1 products]: with k == 1, a @ b is the outer product of a's column and b's row,
// c[i, j] = alpha * a[i] * b[j] (+ beta * c[i, j]): one pass writing c. BLAS's gemm spends more
// on it than that (OpenBLAS zeroes c in a beta pass, then packs both operands, then runs its
// kernel), and a backward pass makes many of them: the weight gradient of x @ w for one sample
// (x a row) is x^T @ grad, and vmap(grad) makes it a bmm of one outer product per sample. Each
// element is one rounded product, as in BLAS, so both paths agree for alpha == 1.
//
// Note [Streaming stores]: a product's time is then the time to write c. When the whole
// result is larger than a core's cache (kStreamingBytes), its lines are gone from the cache by
// the time anyone reads them, and normal stores first read every line they write (read for
// ownership); non-temporal stores skip that read and write whole lines: writing 8 MiB of
// outer products (vmap(grad)'s per-sample gradients) took half the time (docs/performance.md).
// glibc's memset and memcpy switch to them above a size for the same reason. x86 only (SSE2's
// _mm_stream_ps, 16-byte aligned); elsewhere, and for other dtypes, the plain loop.
constexpr int64_t kStreamingBytes = int64_t{4} << 20;

#if defined(__SSE2__)
// out[j] = a_i * r[j] for j < n, streamed past the cache (the caller fences).
void stream_scaled_row(float* out, float a_i, const float* r, int64_t n) {
  int64_t j = 0;
  for (; j < n && (reinterpret_cast<uintptr_t>(out + j) & 15) != 0; ++j) out[j] = a_i * r[j];
  const __m128 scale = _mm_set1_ps(a_i);
  for (; j + 4 <= n; j += 4) _mm_stream_ps(out + j, _mm_mul_ps(scale, _mm_loadu_ps(r + j)));
  for (; j < n; ++j) out[j] = a_i * r[j];
}

void stream_scaled_row(double* out, double a_i, const double* r, int64_t n) {
  int64_t j = 0;
  for (; j < n && (reinterpret_cast<uintptr_t>(out + j) & 15) != 0; ++j) out[j] = a_i * r[j];
  const __m128d scale = _mm_set1_pd(a_i);
  for (; j + 2 <= n; j += 2) _mm_stream_pd(out + j, _mm_mul_pd(scale, _mm_loadu_pd(r + j)));
  for (; j < n; ++j) out[j] = a_i * r[j];
}
#endif

// c = alpha * a @ b + beta * c for a of one column; `streaming` asks for non-temporal stores
// (See Note [Streaming stores]), which apply to float and double with beta == 0.
template <typename T>
void gemm_rank1(const Matrix<T>& a, const Matrix<T>& b, T* c, const Scalar& alpha_value, const Scalar& beta_value,
                bool streaming) {
  using Acc = std::conditional_t<std::is_integral_v<T>, int64_t, opmath_t<T>>;
  const Acc alpha = alpha_value.to<Acc>();
  const Acc beta = beta_value.to<Acc>();
  const bool use_c = beta != Acc(0);
  const int64_t n = b.cols;
  // b's row, times alpha unless alpha is 1 (so that alpha == 1 rounds once, as BLAS does).
  std::vector<Acc> row(static_cast<size_t>(n));
  for (int64_t j = 0; j < n; ++j) {
    const Acc b_j = cpu::convert<Acc>(b(0, j));
    row[static_cast<size_t>(j)] = alpha == Acc(1) ? b_j : math::mul(alpha, b_j);
  }
  const Acc* r = row.data();
  // Rows split over the threads as BLAS would (each thread fences its own streamed stores).
  const int64_t grain = std::max<int64_t>(1, cpu::kParallelGrain / std::max<int64_t>(n, 1));
#if defined(__SSE2__)
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    if (streaming && !use_c) {
      cpu::parallel_for(a.rows, grain, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) stream_scaled_row(c + i * n, a(i, 0), r, n);
        _mm_sfence();  // the streamed lines are visible before the result is used
      });
      return;
    }
  }
#endif
  (void)streaming;
  cpu::parallel_for(a.rows, grain, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      const Acc a_i = cpu::convert<Acc>(a(i, 0));
      T* out = c + i * n;
      if (use_c) {
        for (int64_t j = 0; j < n; ++j) {
          out[j] = cpu::convert<T>(math::add(math::mul(a_i, r[j]), math::mul(beta, cpu::convert<Acc>(out[j]))));
        }
      } else {
        for (int64_t j = 0; j < n; ++j) out[j] = cpu::convert<T>(math::mul(a_i, r[j]));
      }
    }
  });
}

template <typename T>
void gemm(const Matrix<T>& a, const Matrix<T>& b, T* c, const Scalar& alpha, const Scalar& beta) {
  const int64_t m = a.rows, k = a.cols, n = b.cols;
  if (m == 0 || n == 0) return;
  if (k == 1) {
    gemm_rank1(a, b, c, alpha, beta, m * n * static_cast<int64_t>(sizeof(T)) >= kStreamingBytes);
    return;
  }
  if constexpr (std::is_same_v<T, float>) {
    // One row: a matrix-vector product, which BLAS's sgemm would run by packing all of b.
    if (m == 1 && cpu::gemv_float(a.data, a.col_stride, b.data, b.row_stride, b.col_stride, k, n, c,
                                  alpha.to<float>(), beta.to<float>())) {
      return;
    }
  }
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    // See Note [One-hot rows] (cpu/one_hot_rows.h): a selection of b's rows, not a product.
    if (cpu::one_hot_rows_product(a, b, c, alpha.to<T>(), beta.to<T>())) {
      return;
    }
  }
#ifdef TG_HAVE_BLAS
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    BlasLayout la, lb;
    if (k > 0 && m <= INT_MAX && n <= INT_MAX && k <= INT_MAX &&
        blas_layout(a.rows, a.cols, a.row_stride, a.col_stride, &la) &&
        blas_layout(b.rows, b.cols, b.row_stride, b.col_stride, &lb)) {
      // One BLAS call per block, on tensorgen's threads: See Note [One thread pool].
      cpu::blas_gemm(la.transposed, lb.transposed, m, n, k, alpha.to<T>(), a.data, la.ld, b.data, lb.ld,
                     beta.to<T>(), c, n);
      return;
    }
  }
#endif
  gemm_reference(a, b, c, alpha, beta);
}

// product(a, b, c) as one launch (cpu/launch.h), so that a recorded graph replays the product
// without the kernel around it: the operands' addresses are the launch's, the rest is fixed.
template <typename T, typename Product>
void launch_product(const Matrix<T>& a, const Matrix<T>& b, T* c, const Product& product) {
  const std::array<char*, 3> operands{reinterpret_cast<char*>(c), reinterpret_cast<char*>(const_cast<T*>(a.data)),
                                      reinterpret_cast<char*>(const_cast<T*>(b.data))};
  cpu::launch(operands, [a, b, product](const std::array<char*, 3>& p) {
    Matrix<T> a_at = a, b_at = b;
    a_at.data = reinterpret_cast<const T*>(p[1]);
    b_at.data = reinterpret_cast<const T*>(p[2]);
    product(a_at, b_at, reinterpret_cast<T*>(p[0]));
  });
}

template <typename T>
void launch_gemm(const Matrix<T>& a, const Matrix<T>& b, T* c, const Scalar& alpha, const Scalar& beta) {
  launch_product(a, b, c, [alpha, beta](const Matrix<T>& x, const Matrix<T>& y, T* z) { gemm(x, y, z, alpha, beta); });
}

// Note [Broadcast bmm operand]: vmap turns a product with an unbatched weight into a bmm whose
// mat2 is that weight expanded over the batch (batch stride 0), e.g. the forward of a
// per-sample gradient, where the weight must stay batched for its per-sample gradient. When
// self's matrices are consecutive rows of one matrix, the whole bmm is one gemm of
// [batch * n, k] @ [k, m], whose result rows are out's matrices one after another.

// The matrices of a 3-d tensor as one [batch * n, k] matrix, when consecutive rows hold them
// in a layout BLAS reads (else the per-matrix loop, which BLAS reads, is faster).
template <typename T>
std::optional<Matrix<T>> stacked_rows(const Tensor& t) {
  const int64_t batch = t.sizes()[0], n = t.sizes()[1], k = t.sizes()[2];
  int64_t row_stride = t.strides()[1];
  if (n == 1) {
    row_stride = t.strides()[0];
  } else if (t.strides()[0] != n * t.strides()[1]) {
    return std::nullopt;
  }
  BlasLayout layout;
  if (!blas_layout(batch * n, k, row_stride, t.strides()[2], &layout)) return std::nullopt;
  return Matrix<T>{t.data_ptr<T>(), batch * n, k, row_stride, t.strides()[2]};
}

// Whether two tensors are the very same elements (same start, shape and strides).
bool same_elements(const Tensor& a, const Tensor& b) {
  return a.data_ptr() == b.data_ptr() && a.sizes() == b.sizes() && a.strides() == b.strides();
}

// The tensor a product writes to: `out`, or a temporary when out shares memory with an
// operand (a product reads its operands after it starts writing).
Tensor product_target(const Tensor& out, const Tensor& mat1, const Tensor& mat2) {
  if (!out.is_alias_of(mat1) && !out.is_alias_of(mat2)) return out;
  return make_empty_tensor(out.sizes(), out.scalar_type(), out.device());
}

void finish_product(const Tensor& out, const Tensor& target) {
  if (!target.is_same(out)) cpu::copy_into(out, target);
}

}  // namespace

void native::mm_out_cpu(const Tensor& self, const Tensor& mat2, const Tensor& out) {
  cpu::LaunchesOnly launches_only;  // see Note [Launch replay]
  const Tensor target = product_target(out, self, mat2);
  TG_DISPATCH_NUMERIC_TYPES(out.scalar_type(), "mm", [&] {
    const Tensor a = blas_readable(self), b = blas_readable(mat2);
    launch_gemm(matrix_of<scalar_t>(a, 0), matrix_of<scalar_t>(b, 0), target.data_ptr<scalar_t>(), Scalar(1),
                Scalar(0));
  });
  finish_product(out, target);
}

void native::bmm_out_cpu(const Tensor& self, const Tensor& mat2, const Tensor& out) {
  cpu::LaunchesOnly launches_only;  // see Note [Launch replay]
  const Tensor target = product_target(out, self, mat2);
  TG_DISPATCH_NUMERIC_TYPES(out.scalar_type(), "bmm", [&] {
    const Tensor a = blas_readable(self), b = blas_readable(mat2);
    const int64_t matrix_numel = out.sizes()[1] * out.sizes()[2];
    scalar_t* c = target.data_ptr<scalar_t>();
    if (a.sizes()[2] == 1) {  // one outer product per batch: See Notes [Rank-1 products], [Streaming stores]
      const bool streaming = out.numel() * static_cast<int64_t>(sizeof(scalar_t)) >= kStreamingBytes;
      for (int64_t batch = 0; batch < out.sizes()[0]; ++batch) {
        launch_product(matrix_of<scalar_t>(a, batch), matrix_of<scalar_t>(b, batch), c + batch * matrix_numel,
                       [streaming](const auto& x, const auto& y, scalar_t* z) {
                         gemm_rank1(x, y, z, Scalar(1), Scalar(0), streaming);
                       });
      }
      return;
    }
    if (out.sizes()[0] > 1 && b.strides()[0] == 0) {  // See Note [Broadcast bmm operand]
      if (std::optional<Matrix<scalar_t>> rows = stacked_rows<scalar_t>(a)) {
        launch_gemm(*rows, matrix_of<scalar_t>(b, 0), c, Scalar(1), Scalar(0));
        return;
      }
    }
    for (int64_t batch = 0; batch < out.sizes()[0]; ++batch) {
      launch_gemm(matrix_of<scalar_t>(a, batch), matrix_of<scalar_t>(b, batch), c + batch * matrix_numel, Scalar(1),
                  Scalar(0));
    }
  });
  finish_product(out, target);
}

// out = beta * self + alpha * mat1 @ mat2, with self broadcast to out's shape. When beta is 0
// self is not read (a NaN there does not propagate), as in PyTorch.
void native::addmm_out_cpu(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta,
                           const Scalar& alpha, const Tensor& out) {
  cpu::LaunchesOnly launches_only;  // see Note [Launch replay]
  const Tensor target = product_target(out, mat1, mat2);
  const bool beta_is_zero = beta.toDouble() == 0.0;
  if (!beta_is_zero && !same_elements(target, self)) cpu::copy_into(target, self);
  TG_DISPATCH_NUMERIC_TYPES(out.scalar_type(), "addmm", [&] {
    const Tensor a = blas_readable(mat1), b = blas_readable(mat2);
    launch_gemm(matrix_of<scalar_t>(a, 0), matrix_of<scalar_t>(b, 0), target.data_ptr<scalar_t>(), alpha,
                beta_is_zero ? Scalar(0) : beta);
  });
  finish_product(out, target);
}

}  // namespace tg
