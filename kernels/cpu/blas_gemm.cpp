#include "cpu/blas_gemm.h"

#include <algorithm>
#include <string>

#include "cpu/blas_core.h"
#include "cpu/parallel.h"
#include "cpu/sgemm_avx512.h"
#include "cpu/sgemm_choice.h"
#include "cpu/thread_pool.h"

#ifdef _OPENMP
#include <omp.h>
#endif
#ifdef TG_HAVE_BLAS
#include <cblas.h>
#endif

namespace tg::cpu {

// Note [One thread pool]
// tensorgen runs its loops on its own threads (cpu/thread_pool.h; OpenMP's before session 12).
// Debian's default OpenBLAS (libopenblas0-pthread,
// what libopenblas-dev pulls in and tools/setup.sh installs) keeps a pool of its own, and when
// both pools had as many threads as there are cores, each one's waiting threads (libgomp's spin
// wait, OpenBLAS's sched_yield loop) held the cores the other needed: a transformer block took
// 3.1-3.7 s for 20 runs on 2 cores, 0.5 s with either pool at one thread (docs/performance.md).
// So there is one pool, tensorgen's, as PyTorch has one with MKL and OpenMP:
// - At load, tensorgen sets OpenBLAS to one thread (openblas_set_num_threads(1)), after the
//   kernel choice of Note [OpenBLAS on newer CPUs]. OPENBLAS_NUM_THREADS then has no effect on
//   tensorgen's products: their thread count is tensorgen's (OMP_NUM_THREADS,
//   tg::set_num_threads), as at::set_num_threads governs MKL in LibTorch. The setting is
//   process-wide (OpenBLAS has one), so other OpenBLAS users in the process run on one thread
//   too. OpenBLAS's OpenMP build sets the caller's OpenMP thread count inside that call: it is
//   put back.
// - blas_gemm cuts a large product into one block of output rows (or columns, whichever
//   dimension is longer) per thread, each block one single-threaded BLAS call, run by
//   parallel_for. Blocks are multiples of 16 rows, and each has at least kMinBlockWork
//   multiply-adds: below that, waking a thread costs more than it saves, and OpenBLAS may
//   run a block through its small-matrix kernels. One thread (tg::set_num_threads(1), or a
//   product inside a parallel region, which must not start a nested team) means one call on
//   the calling thread: exactly the single-threaded product of before.
// - The split depends on the shape and the thread count only, so eager and a static graph at
//   the same thread count cut a product alike and agree bit for bit. Across thread counts a
//   result can differ in its last bits where OpenBLAS runs a block through another kernel than
//   the whole (its direct and small-matrix kernels are chosen by size), as OpenBLAS's own
//   threading could before (its direct-kernel choice depends on its thread count). Float
//   products on tensorgen's own sgemm (Note [Choosing the float product]) have the same bits
//   on any thread count (Note [Same bits however the product is cut]). The GEMV of one-row
//   products (Note [GEMV order]) keeps its fixed order on any thread count.
// The split costs the re-packing of the operand every block shares: a 256³ product cut into
// 2 blocks on one core ran ~10-15% slower than one call, hence no split on one thread.

namespace {

constexpr int64_t kMinBlockWork = int64_t{1} << 20;  // multiply-adds per block
constexpr int64_t kBlockAlign = 16;                  // rows or columns: whole register tiles

#ifdef TG_HAVE_BLAS
CBLAS_TRANSPOSE transpose(bool t) { return t ? CblasTrans : CblasNoTrans; }

void gemm_block(bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
                const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  cblas_sgemm(CblasRowMajor, transpose(ta), transpose(tb), static_cast<int>(m), static_cast<int>(n),
              static_cast<int>(k), alpha, a, static_cast<int>(lda), b, static_cast<int>(ldb), beta, c,
              static_cast<int>(ldc));
}

void gemm_block(bool ta, bool tb, int64_t m, int64_t n, int64_t k, double alpha, const double* a, int64_t lda,
                const double* b, int64_t ldb, double beta, double* c, int64_t ldc) {
  cblas_dgemm(CblasRowMajor, transpose(ta), transpose(tb), static_cast<int>(m), static_cast<int>(n),
              static_cast<int>(k), alpha, a, static_cast<int>(lda), b, static_cast<int>(ldb), beta, c,
              static_cast<int>(ldc));
}
#else
template <typename T>
void gemm_block(bool ta, bool tb, int64_t m, int64_t n, int64_t k, T alpha, const T* a, int64_t lda, const T* b,
                int64_t ldb, T beta, T* c, int64_t ldc) {
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      T sum = 0;
      for (int64_t p = 0; p < k; ++p) {
        sum += (ta ? a[p * lda + i] : a[i * lda + p]) * (tb ? b[j * ldb + p] : b[p * ldb + j]);
      }
      c[i * ldc + j] = beta == T(0) ? alpha * sum : alpha * sum + beta * c[i * ldc + j];
    }
  }
}
#endif

// BLAS's product (the plain loop without BLAS) on one block, as a callable.
constexpr auto library_block = [](auto... args) { gemm_block(args...); };

// tensorgen's own float product on one block (Note [Choosing the float product]).
constexpr auto our_sgemm_block = [](auto... args) { sgemm_avx512(args...); };

// Runs `gemm_block` (one of the above) on each block of the cut.
template <typename T, typename Block>
void split_gemm(const Block& gemm_block, bool ta, bool tb, int64_t m, int64_t n, int64_t k, T alpha, const T* a,
                int64_t lda, const T* b, int64_t ldb, T beta, T* c, int64_t ldc) {
  const GemmSplit split = gemm_split(m, n, k, gemm_threads());
  if (split.count == 1) {
    gemm_block(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    return;
  }
  const int64_t length = split.by_rows ? m : n;
  parallel_for(split.count, 1, [&](int64_t begin, int64_t end) {
    for (int64_t block = begin; block < end; ++block) {
      const int64_t start = block * split.size, size = std::min(split.size, length - start);
      if (split.by_rows) {  // rows [start, start + size) of op(a) and of c
        gemm_block(ta, tb, size, n, k, alpha, ta ? a + start : a + start * lda, lda, b, ldb, beta, c + start * ldc,
                   ldc);
      } else {  // columns [start, start + size) of op(b) and of c
        gemm_block(ta, tb, m, size, k, alpha, a, lda, tb ? b + start * ldb : b + start, ldb, beta, c + start, ldc);
      }
    }
  });
}

std::string select_threads() {
  blas_core_selection();  // OpenBLAS's kernel choice re-initialises it: that comes first
#ifdef TG_HAVE_OPENBLAS_THREADS
  const char* builds[] = {"sequential", "pthreads", "OpenMP"};
  const int build = openblas_get_parallel();
  const int before = openblas_get_num_threads();
#ifdef _OPENMP
  const int ours = omp_get_max_threads();
#endif
  openblas_set_num_threads(1);
#ifdef _OPENMP
  omp_set_num_threads(ours);  // OpenBLAS's OpenMP build set it to 1
#endif
  return std::string("OpenBLAS (") + (build >= 0 && build <= 2 ? builds[build] : "unknown") +
         " build) set to 1 thread, was " + std::to_string(before);
#else
  return "no OpenBLAS thread control";
#endif
}

// At load, before any product runs (See Note [One thread pool]).
[[maybe_unused]] const bool threads_selected_at_load = !blas_threads_selection().empty();

}  // namespace

GemmSplit gemm_split(int64_t m, int64_t n, int64_t k, int threads) {
  const bool by_rows = m >= n;
  const int64_t length = by_rows ? m : n, other = by_rows ? n : m;
  const int64_t work_per_unit = other * k;  // <= 2^62: every dimension is <= INT_MAX
  const int64_t blocks_by_work = work_per_unit >= kMinBlockWork ? length : length * work_per_unit / kMinBlockWork;
  const int64_t count =
      std::min({static_cast<int64_t>(std::max(threads, 1)), blocks_by_work, (length + kBlockAlign - 1) / kBlockAlign});
  if (count <= 1) return GemmSplit{by_rows, length, 1};
  const int64_t size = ((length + count - 1) / count + kBlockAlign - 1) / kBlockAlign * kBlockAlign;
  return GemmSplit{by_rows, size, (length + size - 1) / size};
}

int gemm_threads() { return in_parallel_region() ? 1 : get_num_threads(); }

void blas_gemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
               int64_t lda, const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  // Chosen here, outside the parallel region: a malformed TG_CPU_GEMM throws from this call.
  if (cpu_gemm() == CpuGemm::kTensorgen) {
    count_tensorgen_sgemm_product();
    split_gemm(our_sgemm_block, trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  } else {
    split_gemm(library_block, trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  }
}

void blas_gemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, double alpha, const double* a,
               int64_t lda, const double* b, int64_t ldb, double beta, double* c, int64_t ldc) {
  split_gemm(library_block, trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

const std::string& blas_threads_selection() {
  static const std::string selection = select_threads();
  return selection;
}

}  // namespace tg::cpu
