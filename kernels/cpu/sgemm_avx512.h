// tensorgen's own single-precision matrix product for CPUs with AVX-512F: packing, a
// register-blocked micro-kernel and cache blocking in the manner of BLIS / GotoBLAS. See
// Note [A matrix product of our own] (sgemm_avx512.cpp). Reached only through cpu::blas_gemm,
// after sgemm_choice.h has said that this CPU runs it.
#pragma once

#include <cstdint>

namespace tg::cpu {

// Row-major c = alpha * op(a) @ op(b) + beta * c on the calling thread, with the contract of
// cblas_sgemm(CblasRowMajor, ...): op(a) is [m, k] (a stored [m, k] with leading dimension lda,
// or [k, m] when trans_a), op(b) is [k, n], c is [m, n] with leading dimension ldc. beta == 0
// does not read c; alpha == 0 or k == 0 reads neither a nor b. Each element of c is computed
// by the same sequence of operations wherever it lies in c, so a block of rows or columns
// computed alone equals the same block of the whole product, bit for bit (Note [Same bits
// however the product is cut]). Only on a CPU with AVX-512F (tensorgen_sgemm_supported(), sgemm_choice.h).
void sgemm_avx512(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
                  int64_t lda, const float* b, int64_t ldb, float beta, float* c, int64_t ldc);

// c = alpha * a @ B + beta * c, with a [m, k] row-major (leading dimension lda) and row p of
// B the n floats at b + b_rows[p]: a product whose b rows lie anywhere, such as the shifted
// image rows of every kernel offset of a convolution at once (Note [One product per strip],
// conv_kernel_shifts.cpp). The same arithmetic as sgemm_avx512 with those rows.
void sgemm_avx512_row_table(int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
                            const float* b, const int64_t* b_rows, float beta, float* c, int64_t ldc);

}  // namespace tg::cpu
