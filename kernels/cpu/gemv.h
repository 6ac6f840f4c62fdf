// The float matrix-vector product behind mm/addmm/bmm when the left operand has one row
// (m = 1, a linear layer at batch 1). BLAS's sgemm treats it as a general product and packs
// the whole right operand into its panel layout on every call, which costs more than the
// product itself; this reads each weight once, in place. See Note [GEMV order].
#pragma once

#include <cstdint>

namespace tg::cpu {

// c[j] = alpha * sum_p x[p * x_stride] * b[p * b_row_stride + j * b_col_stride]
//        (+ beta * c[j] when beta != 0, else c is not read), for j < n, c contiguous.
// Handles b with unit column stride (row-major [k, n]) or unit row stride (the transpose of a
// row-major [n, k], as linear's weight.t()); returns false, writing nothing, for other layouts.
bool gemv_float(const float* x, int64_t x_stride, const float* b, int64_t b_row_stride, int64_t b_col_stride,
                int64_t k, int64_t n, float* c, float alpha, float beta);

}  // namespace tg::cpu
