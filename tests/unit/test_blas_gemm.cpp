// Tests of Note [One thread pool] (kernels/cpu/blas_gemm.cpp): how a product is cut over
// threads, the cut products against a plain loop (odd shapes, transposed operands, padded
// leading dimensions, alpha and beta, one and two threads), products inside a parallel
// region, and OpenBLAS kept at one thread.
#include <dlfcn.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "cpu/blas_gemm.h"
#include "cpu/parallel.h"
#include "ops_test_helpers.h"
#include "thread_count.h"

#ifdef _OPENMP
#include <omp.h>
#endif

using namespace ops_test;

namespace {

// A stored operand: `rows` x `cols` row-major with leading dimension ld >= cols, padding
// included. Small integers, so that every product and sum below is exact in float.
template <typename T>
std::vector<T> small_integers(int64_t rows, int64_t ld, int seed) {
  std::vector<T> v(static_cast<size_t>(rows * ld));
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<T>(static_cast<int>((i * 7 + seed * 13) % 9) - 4);
  return v;
}

struct Shape {
  int64_t m, n, k;
};

// Checks blas_gemm against a plain loop for one shape, every transpose combination, padded
// leading dimensions, and c's padding left alone; on the current thread count.
template <typename T>
void check_against_loop(const Shape& s, T alpha, T beta) {
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      CAPTURE(s.m);
      CAPTURE(s.n);
      CAPTURE(s.k);
      CAPTURE(ta);
      CAPTURE(tb);
      // Stored shapes: a is [m, k] or [k, m], b is [k, n] or [n, k]; each with 3 spare columns.
      const int64_t a_rows = ta ? s.k : s.m, a_cols = ta ? s.m : s.k, lda = a_cols + 3;
      const int64_t b_rows = tb ? s.n : s.k, b_cols = tb ? s.k : s.n, ldb = b_cols + 3;
      const int64_t ldc = s.n + 5;
      const std::vector<T> a = small_integers<T>(a_rows, lda, 1), b = small_integers<T>(b_rows, ldb, 2);
      std::vector<T> c = small_integers<T>(s.m, ldc, 3);
      if (beta == T(0)) {  // beta == 0: c is not read, so NaNs there do not propagate
        for (int64_t i = 0; i < s.m; ++i) {
          for (int64_t j = 0; j < s.n; ++j) c[i * ldc + j] = std::numeric_limits<T>::quiet_NaN();
        }
      }
      std::vector<T> expected = c;
      for (int64_t i = 0; i < s.m; ++i) {
        for (int64_t j = 0; j < s.n; ++j) {
          double sum = 0;
          for (int64_t p = 0; p < s.k; ++p) {
            sum += static_cast<double>(ta ? a[p * lda + i] : a[i * lda + p]) *
                   static_cast<double>(tb ? b[j * ldb + p] : b[p * ldb + j]);
          }
          const double old = beta == T(0) ? 0.0 : static_cast<double>(c[i * ldc + j]);
          expected[i * ldc + j] = static_cast<T>(alpha * sum + beta * old);
        }
      }
      tg::cpu::blas_gemm(ta, tb, s.m, s.n, s.k, alpha, a.data(), lda, b.data(), ldb, beta, c.data(), ldc);
      int64_t wrong = 0;
      for (size_t i = 0; i < c.size(); ++i) wrong += c[i] == expected[i] ? 0 : 1;  // padding included
      CHECK(wrong == 0);
    }
  }
}

// Shapes that run as one call, and shapes cut by rows and by columns (unequal blocks) on two
// threads; the test of the cut checks that they are cut.
const Shape kShapes[] = {{1, 1, 1}, {7, 5, 3}, {67, 45, 33}, {300, 70, 129}, {50, 401, 133}, {257, 263, 37}};

int openblas_threads() {
  using GetFn = int (*)();
  const auto get = reinterpret_cast<GetFn>(dlsym(RTLD_DEFAULT, "openblas_get_num_threads"));
  return get == nullptr ? -1 : get();
}

bool have_two_threads() {
#ifdef _OPENMP
  return true;
#else
  return false;
#endif
}

}  // namespace

TEST_CASE("blas gemm: one thread, or a small product, is one call on the calling thread") {
  for (const Shape& s : kShapes) {
    CHECK(tg::cpu::gemm_split(s.m, s.n, s.k, 1).count == 1);
  }
  // 64 x 64 x 64 is 2^18 multiply-adds: below a block's minimum, whatever the threads.
  CHECK(tg::cpu::gemm_split(64, 64, 64, 16).count == 1);
  CHECK(tg::cpu::gemm_split(0, 100, 100, 4).count == 1);
  CHECK(tg::cpu::gemm_split(100, 100, 0, 4).count == 1);
}

TEST_CASE("blas gemm: a large product is cut along its longer side into whole 16-row blocks, at most one per "
          "thread") {
  for (int threads : {2, 3, 4, 16}) {
    CAPTURE(threads);
    for (const Shape& s : {Shape{1024, 1024, 1024}, Shape{300, 70, 129}, Shape{50, 401, 133}, Shape{4000, 8, 512}}) {
      CAPTURE(s.m);
      CAPTURE(s.n);
      const tg::cpu::GemmSplit split = tg::cpu::gemm_split(s.m, s.n, s.k, threads);
      const int64_t length = split.by_rows ? s.m : s.n;
      CHECK(split.by_rows == (s.m >= s.n));
      CHECK(split.count >= 2);
      CHECK(split.count <= threads);
      CHECK(split.size % 16 == 0);
      CHECK((split.count - 1) * split.size < length);  // every block holds rows
      CHECK(split.count * split.size >= length);       // and they cover the side
      CHECK(split.size * (split.by_rows ? s.n : s.m) * s.k >= (int64_t{1} << 20));  // each worth a thread
    }
  }
  for (const Shape& s : {Shape{300, 70, 129}, Shape{50, 401, 133}, Shape{257, 263, 37}}) {
    CHECK(tg::cpu::gemm_split(s.m, s.n, s.k, 2).count == 2);  // kShapes' cut cases are cut
  }
}

TEST_CASE_TEMPLATE("blas gemm: the cut product equals a plain loop on one and two threads (transposed operands, "
                   "padded leading dimensions, alpha and beta)",
                   T, float, double) {
  for (int threads : {1, 2}) {
    if (threads == 2 && !have_two_threads()) {
      MESSAGE("skipped the two-thread pass: built without OpenMP");
      continue;
    }
    ThreadCount count(threads);
    CAPTURE(threads);
    for (const Shape& s : kShapes) {
      check_against_loop<T>(s, T(1), T(0));
      check_against_loop<T>(s, T(0.5), T(2));
    }
  }
}

TEST_CASE("blas gemm: a product inside a parallel region runs on the thread that calls it, and concurrent "
          "products are right") {
  if (!have_two_threads()) {
    MESSAGE("skipped: built without OpenMP");
    return;
  }
  ThreadCount count(2);
  CHECK(tg::cpu::gemm_threads() == 2);
  constexpr int64_t kProducts = 4, m = 300, n = 70, k = 129;  // each large enough to be cut at top level
  std::vector<std::vector<float>> results(kProducts, std::vector<float>(m * n));
  const std::vector<float> a = small_integers<float>(m, k, 1), b = small_integers<float>(k, n, 2);
  std::vector<int> threads_seen(kProducts, 0);
  tg::cpu::parallel_for(kProducts, 1, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      threads_seen[i] = tg::cpu::gemm_threads();
      tg::cpu::blas_gemm(false, false, m, n, k, 1.0f, a.data(), k, b.data(), n, 0.0f, results[i].data(), n);
    }
  });
  std::vector<float> expected(m * n);
  tg::cpu::blas_gemm(false, false, m, n, k, 1.0f, a.data(), k, b.data(), n, 0.0f, expected.data(), n);
  for (int64_t i = 0; i < kProducts; ++i) {
    CHECK(threads_seen[i] == 1);
    CHECK(results[i] == expected);
  }
}

TEST_CASE("blas gemm: OpenBLAS runs on one thread whatever tensorgen's thread count (skipped without OpenBLAS)" *
          doctest::skip(openblas_threads() < 0)) {
  INFO("selection: ", tg::cpu::blas_threads_selection());
  CHECK(tg::cpu::blas_threads_selection().find("set to 1 thread") != std::string::npos);
  CHECK(openblas_threads() == 1);
  {
    ThreadCount count(2);
    CHECK(openblas_threads() == 1);
    CHECK(tg::get_num_threads() == 2);
  }
  CHECK(openblas_threads() == 1);
}

TEST_CASE("blas gemm: mm and addmm through the cut, on views, equal the plain loop on one and two threads") {
  // A transposed, sliced operand (leading dimension wider than the matrix) and addmm's beta.
  const auto integers = [](int64_t count, int modulus) {
    Values v(static_cast<size_t>(count));
    for (int64_t i = 0; i < count; ++i) v[i] = static_cast<double>(i % modulus - modulus / 2);
    return v;
  };
  const tg::Tensor a_full = make(integers(int64_t{140} * 320, 9), {140, 320});
  const tg::Tensor a = a_full.narrow(1, 3, 300).t();  // [300, 140], column stride 320
  const tg::Tensor b = make(integers(int64_t{140} * 90, 7), {140, 90});
  const tg::Tensor bias = make(integers(90, 5), {90});
  const Values av = values(a.contiguous()), bv = values(b), biasv = values(bias);
  Values expected(300 * 90);
  for (int64_t i = 0; i < 300; ++i) {
    for (int64_t j = 0; j < 90; ++j) {
      double sum = 0;
      for (int64_t p = 0; p < 140; ++p) sum += av[i * 140 + p] * bv[p * 90 + j];
      expected[i * 90 + j] = sum;
    }
  }
  for (int threads : {1, 2}) {
    ThreadCount count(threads);
    CAPTURE(threads);
    CHECK(values(tg::mm(a, b)) == expected);
    Values expected_addmm = expected;
    for (int64_t i = 0; i < 300 * 90; ++i) expected_addmm[i] = 3 * biasv[i % 90] + 0.5 * expected[i];
    CHECK(values(tg::addmm(bias, a, b, 3, 0.5)) == expected_addmm);
  }
}
