// The native:: CUDA kernels of the matrix products (schemas/linalg.yaml): mm, bmm and addmm.
// float32, float64, float16 and bfloat16 go to cuBLAS (cublasGemmStridedBatchedEx; 16-bit
// floats and float32 accumulate in float32, with TF32 tensor cores only when
// tg::cuda::allow_tf32() is set); the integral dtypes use the fallback kernel of linalg_ops.cu.
// Operands cuBLAS cannot read in place (neither row- nor column-major) are copied first.
#include <climits>

#include "NativeFunctions.h"
#include "cuda/cublas_handle.h"
#include "cuda/cuda_check.h"
#include "cuda/elementwise_host.h"
#include "cuda/linalg_ops.h"
#include "dtype_dispatch.h"
#include "tensorgen/ops.h"

namespace tg {

namespace {

// A batch of matrices as a strided 3-d view: [batch, rows, cols] (batch 1 for a 2-d tensor).
struct Batched {
  Tensor tensor;
  int64_t batch, rows, cols, batch_stride, row_stride, col_stride;
};

Batched batched(const Tensor& t) {
  const int64_t d = t.dim();
  return Batched{t,
                 d == 3 ? t.sizes()[0] : 1,
                 t.sizes()[d - 2],
                 t.sizes()[d - 1],
                 d == 3 ? t.strides()[0] : 0,
                 t.strides()[d - 2],
                 t.strides()[d - 1]};
}

// How cuBLAS (column-major) reads a row-major matrix: its memory is the matrix's transpose
// with leading dimension ld (transposed == false), or the matrix itself (transposed == true).
struct BlasLayout {
  bool transposed = false;
  int64_t ld = 0;
};

bool blas_layout(const Batched& m, BlasLayout* layout) {
  if ((m.cols == 1 || m.col_stride == 1) && (m.rows == 1 || m.row_stride >= std::max<int64_t>(m.cols, 1))) {
    *layout = BlasLayout{false, m.rows == 1 ? std::max<int64_t>(m.cols, 1) : m.row_stride};
  } else if ((m.rows == 1 || m.row_stride == 1) && (m.cols == 1 || m.col_stride >= std::max<int64_t>(m.rows, 1))) {
    *layout = BlasLayout{true, m.cols == 1 ? std::max<int64_t>(m.rows, 1) : m.col_stride};
  } else {
    return false;
  }
  return layout->ld <= INT_MAX;
}

// The operand itself when cuBLAS can read each of its matrices, else a contiguous copy.
Batched blas_readable(const Tensor& t) {
  Batched m = batched(t);
  BlasLayout layout;
  if (blas_layout(m, &layout)) return m;
  Tensor copy = make_empty_tensor(t.sizes(), t.scalar_type(), t.device());
  copy.copy_(t);
  return batched(copy);
}

int checked_int(const char* op, int64_t value, const char* what) {
  TG_CHECK(value <= INT_MAX, "[", op, "] ", what, " ", value, " is too large for cuBLAS (at most ", INT_MAX, ")");
  return static_cast<int>(value);
}

struct GemmTypes {
  cudaDataType_t data;
  cublasComputeType_t compute;
  bool double_scalars;
};

GemmTypes gemm_types(ScalarType dtype) {
  switch (dtype) {
    case kDouble: return {CUDA_R_64F, CUBLAS_COMPUTE_64F, true};
    case kFloat: return {CUDA_R_32F, cuda::allow_tf32() ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F, false};
    case kHalf: return {CUDA_R_16F, CUBLAS_COMPUTE_32F, false};
    default: return {CUDA_R_16BF, CUBLAS_COMPUTE_32F, false};
  }
}

// c[b] = alpha * a[b] @ b[b] + beta * c[b] for every batch b; c is contiguous [batch, m, n].
// beta == 0 ignores c's values.
void gemm(const char* op, const Batched& a, const Batched& b, const Tensor& c, const Scalar& alpha,
          const Scalar& beta) {
  const int64_t batch = c.dim() == 3 ? c.sizes()[0] : 1;
  const int64_t m = a.rows, k = a.cols, n = b.cols;
  if (batch == 0 || m == 0 || n == 0) return;
  const ScalarType dtype = c.scalar_type();
  if (k == 0) {  // an empty sum: c = beta * c
    if (beta.toDouble() == 0.0) {
      c.zero_();
    } else {
      c.mul_(beta);
    }
    return;
  }
  if (is_integral_type(dtype, /*include_bool=*/false)) {
    TG_CHECK(batch <= 65535 && (m + 15) / 16 <= 65535, "[", op, "] the integer matrix product on CUDA takes at most ",
             "65535 matrices of at most 1048560 rows, got ", batch, " of ", m);
    const cuda::MatrixArg ma{a.tensor.data_ptr(), a.batch_stride, a.row_stride, a.col_stride};
    const cuda::MatrixArg mb{b.tensor.data_ptr(), b.batch_stride, b.row_stride, b.col_stride};
    const cuda::MatrixArg mc{c.data_ptr(), m * n, n, 1};
    cuda::launch_gemm_fallback(dtype, batch, m, n, k, ma, mb, mc, cuda::scalar_value(alpha), cuda::scalar_value(beta));
    return;
  }
  // Row-major C = A @ B is column-major C^T = B^T @ A^T: B goes first.
  BlasLayout la, lb;
  TG_INTERNAL_ASSERT(blas_layout(a, &la) && blas_layout(b, &lb), "operands not readable by cuBLAS");
  const GemmTypes types = gemm_types(dtype);
  const double alpha_d = alpha.toDouble(), beta_d = beta.toDouble();
  const float alpha_f = static_cast<float>(alpha_d), beta_f = static_cast<float>(beta_d);
  const void* alpha_ptr = types.double_scalars ? static_cast<const void*>(&alpha_d) : &alpha_f;
  const void* beta_ptr = types.double_scalars ? static_cast<const void*>(&beta_d) : &beta_f;
  TG_CUBLAS_CHECK(cublasGemmStridedBatchedEx(
      cuda::getCurrentCUDABlasHandle(), lb.transposed ? CUBLAS_OP_T : CUBLAS_OP_N,
      la.transposed ? CUBLAS_OP_T : CUBLAS_OP_N, checked_int(op, n, "size"), checked_int(op, m, "size"),
      checked_int(op, k, "size"), alpha_ptr, b.tensor.data_ptr(), types.data, static_cast<int>(lb.ld), b.batch_stride,
      a.tensor.data_ptr(), types.data, static_cast<int>(la.ld), a.batch_stride, beta_ptr, c.data_ptr(), types.data,
      checked_int(op, n, "size"), m * n, checked_int(op, batch, "batch"), types.compute, CUBLAS_GEMM_DEFAULT));
}

// The tensor a product writes to: `out`, or a temporary when out shares memory with an
// operand (a product reads its operands after it starts writing).
Tensor product_target(const Tensor& out, const Tensor& mat1, const Tensor& mat2) {
  if (!out.is_alias_of(mat1) && !out.is_alias_of(mat2)) return out;
  return make_empty_tensor(out.sizes(), out.scalar_type(), out.device());
}

void finish_product(const Tensor& out, const Tensor& target) {
  if (!target.is_same(out)) out.copy_(target);
}

void check_dtype(const Tensor& out, const char* op) { TG_DISPATCH_NUMERIC_TYPES(out.scalar_type(), op, [] {}); }

bool same_elements(const Tensor& a, const Tensor& b) {
  return a.data_ptr() == b.data_ptr() && a.sizes() == b.sizes() && a.strides() == b.strides();
}

}  // namespace

void native::mm_out_cuda(const Tensor& self, const Tensor& mat2, const Tensor& out) {
  check_dtype(out, "mm");
  const Tensor target = product_target(out, self, mat2);
  gemm("mm", blas_readable(self), blas_readable(mat2), target, Scalar(1), Scalar(0));
  finish_product(out, target);
}

void native::bmm_out_cuda(const Tensor& self, const Tensor& mat2, const Tensor& out) {
  check_dtype(out, "bmm");
  const Tensor target = product_target(out, self, mat2);
  gemm("bmm", blas_readable(self), blas_readable(mat2), target, Scalar(1), Scalar(0));
  finish_product(out, target);
}

// out = beta * self + alpha * mat1 @ mat2, with self broadcast to out's shape. When beta is 0
// self is not read (a NaN there does not propagate), as in PyTorch.
void native::addmm_out_cuda(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta,
                            const Scalar& alpha, const Tensor& out) {
  check_dtype(out, "addmm");
  const Tensor target = product_target(out, mat1, mat2);
  const bool beta_is_zero = beta.toDouble() == 0.0;
  if (!beta_is_zero && !same_elements(target, self)) target.copy_(self);
  gemm("addmm", blas_readable(mat1), blas_readable(mat2), target, alpha, beta_is_zero ? Scalar(0) : beta);
  finish_product(out, target);
}

}  // namespace tg
