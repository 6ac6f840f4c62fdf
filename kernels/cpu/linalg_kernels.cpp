// CPU kernels of the matrix products: mm, bmm, addmm.
// float and double go to BLAS (cblas_?gemm) when the build has it (TG_HAVE_BLAS); every
// other dtype, and every build without BLAS, uses the reference loop. Integer products wrap
// modulo 2^bits like the other integer kernels; float16 and bfloat16 accumulate in float.
#include <algorithm>
#include <climits>
#include <type_traits>
#include <vector>

#include "NativeFunctions.h"
#include "cpu/convert.h"
#include "cpu/copy.h"
#include "dtype_dispatch.h"
#include "scalar_math.h"

#ifdef TG_HAVE_BLAS
#include <cblas.h>
#endif

namespace tg {

namespace {

// A strided matrix: element (i, j) is data[i * row_stride + j * col_stride].
template <typename T>
struct Matrix {
  const T* data;
  int64_t rows, cols, row_stride, col_stride;
  T operator()(int64_t i, int64_t j) const { return data[i * row_stride + j * col_stride]; }
};

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

template <typename T>
void gemm(const Matrix<T>& a, const Matrix<T>& b, T* c, const Scalar& alpha, const Scalar& beta) {
  const int64_t m = a.rows, k = a.cols, n = b.cols;
  if (m == 0 || n == 0) return;
#ifdef TG_HAVE_BLAS
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    BlasLayout la, lb;
    if (k > 0 && m <= INT_MAX && n <= INT_MAX && k <= INT_MAX &&
        blas_layout(a.rows, a.cols, a.row_stride, a.col_stride, &la) &&
        blas_layout(b.rows, b.cols, b.row_stride, b.col_stride, &lb)) {
      const auto ta = la.transposed ? CblasTrans : CblasNoTrans;
      const auto tb = lb.transposed ? CblasTrans : CblasNoTrans;
      const int mi = static_cast<int>(m), ni = static_cast<int>(n), ki = static_cast<int>(k);
      if constexpr (std::is_same_v<T, float>) {
        cblas_sgemm(CblasRowMajor, ta, tb, mi, ni, ki, alpha.to<float>(), a.data, static_cast<int>(la.ld), b.data,
                    static_cast<int>(lb.ld), beta.to<float>(), c, ni);
      } else {
        cblas_dgemm(CblasRowMajor, ta, tb, mi, ni, ki, alpha.to<double>(), a.data, static_cast<int>(la.ld), b.data,
                    static_cast<int>(lb.ld), beta.to<double>(), c, ni);
      }
      return;
    }
  }
#endif
  gemm_reference(a, b, c, alpha, beta);
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
  const Tensor target = product_target(out, self, mat2);
  TG_DISPATCH_NUMERIC_TYPES(out.scalar_type(), "mm", [&] {
    const Tensor a = blas_readable(self), b = blas_readable(mat2);
    gemm(matrix_of<scalar_t>(a, 0), matrix_of<scalar_t>(b, 0), target.data_ptr<scalar_t>(), Scalar(1), Scalar(0));
  });
  finish_product(out, target);
}

void native::bmm_out_cpu(const Tensor& self, const Tensor& mat2, const Tensor& out) {
  const Tensor target = product_target(out, self, mat2);
  TG_DISPATCH_NUMERIC_TYPES(out.scalar_type(), "bmm", [&] {
    const Tensor a = blas_readable(self), b = blas_readable(mat2);
    const int64_t matrix_numel = out.sizes()[1] * out.sizes()[2];
    scalar_t* c = target.data_ptr<scalar_t>();
    for (int64_t batch = 0; batch < out.sizes()[0]; ++batch) {
      gemm(matrix_of<scalar_t>(a, batch), matrix_of<scalar_t>(b, batch), c + batch * matrix_numel, Scalar(1),
           Scalar(0));
    }
  });
  finish_product(out, target);
}

// out = beta * self + alpha * mat1 @ mat2, with self broadcast to out's shape. When beta is 0
// self is not read (a NaN there does not propagate), as in PyTorch.
void native::addmm_out_cpu(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta,
                           const Scalar& alpha, const Tensor& out) {
  const Tensor target = product_target(out, mat1, mat2);
  const bool beta_is_zero = beta.toDouble() == 0.0;
  if (!beta_is_zero && !same_elements(target, self)) cpu::copy_into(target, self);
  TG_DISPATCH_NUMERIC_TYPES(out.scalar_type(), "addmm", [&] {
    const Tensor a = blas_readable(mat1), b = blas_readable(mat2);
    gemm(matrix_of<scalar_t>(a, 0), matrix_of<scalar_t>(b, 0), target.data_ptr<scalar_t>(), alpha,
         beta_is_zero ? Scalar(0) : beta);
  });
  finish_product(out, target);
}

}  // namespace tg
