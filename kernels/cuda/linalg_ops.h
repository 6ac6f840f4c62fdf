// The matrix-product kernel for the dtypes cuBLAS does not multiply (the integral ones).
// C = alpha * A @ B + beta * C over `batch` products; element (i, j) of matrix b of X is at
// X.data + b * X.batch_stride + i * X.row_stride + j * X.col_stride (in elements). C's values
// are not read when beta is 0. Integer products wrap modulo 2^bits, as on the CPU.
#pragma once

#include <cstdint>

#include "core/scalar_type.h"
#include "cuda/elementwise_args.h"

namespace tg::cuda {

struct MatrixArg {
  void* data = nullptr;
  int64_t batch_stride = 0;
  int64_t row_stride = 0;
  int64_t col_stride = 0;
};

void launch_gemm_fallback(ScalarType dtype, int64_t batch, int64_t m, int64_t n, int64_t k, const MatrixArg& a,
                          const MatrixArg& b, const MatrixArg& c, ScalarValue alpha, ScalarValue beta);

}  // namespace tg::cuda
