// Every float and double matrix product that tensorgen hands to BLAS goes through here: one
// single-threaded call per block of the output, the blocks spread over tensorgen's own
// threads (cpu/thread_pool.h). See Note [One thread pool] (blas_gemm.cpp). A float block runs
// tensorgen's own sgemm on CPUs with AVX-512, else BLAS's (Note [Choosing the float product],
// sgemm_choice.cpp; TG_CPU_GEMM=openblas forces BLAS).
#pragma once

#include <cstdint>
#include <string>

namespace tg::cpu {

// How a product is cut: `count` blocks of `size` consecutive rows (by_rows) or columns of the
// output, the last one possibly shorter. count == 1: one call on the calling thread.
struct GemmSplit {
  bool by_rows = true;
  int64_t size = 0;
  int64_t count = 1;
};

// The split of an [m, k] @ [k, n] product on `threads` threads (the caller's thread count, 1
// inside a parallel region). A function of its arguments only, so eager and a static graph,
// which run the same product at the same thread count, cut it alike.
GemmSplit gemm_split(int64_t m, int64_t n, int64_t k, int threads);

// The number of threads a product started on this thread may use now: 1 inside a parallel
// region (a product inside a parallel_for runs on the thread that calls it), else the
// thread count (tg::set_num_threads).
int gemm_threads();

// Row-major c = alpha * op(a) @ op(b) + beta * c, as cblas_?gemm(CblasRowMajor, ...): op(a) is
// [m, k] (a stored [m, k] with leading dimension lda, or [k, m] when trans_a), op(b) is [k, n],
// c is [m, n] with leading dimension ldc. beta == 0 does not read c. Every dimension is >= 0
// and, with every leading dimension, <= INT_MAX (the caller checks: BLAS takes int). Split by
// gemm_split(m, n, k, gemm_threads()). In a build without BLAS each block is a plain loop
// (gemm_reference in linalg_kernels.cpp is what products use there; this keeps the split
// testable in every build).
void blas_gemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
               int64_t lda, const float* b, int64_t ldb, float beta, float* c, int64_t ldc);
void blas_gemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, double alpha, const double* a,
               int64_t lda, const double* b, int64_t ldb, double beta, double* c, int64_t ldc);

// What tensorgen did at load about OpenBLAS's own threads ("OpenBLAS (pthreads build) set to
// 1 thread, was 2", or "no OpenBLAS thread control"). For benchmarks and bug reports.
const std::string& blas_threads_selection();

}  // namespace tg::cpu
