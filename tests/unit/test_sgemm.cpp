// Tests of tensorgen's own float product (kernels/cpu/sgemm_avx512.cpp, Note [A matrix product
// of our own]) and of its choice (Note [Choosing the float product]): the product against a
// double-precision reference over many shapes, transposes, leading dimensions and alpha/beta;
// the same bits at 1, 2 and 3 threads; the product with a table of b rows (the convolution's);
// TG_CPU_GEMM's parsing; and the switch between ours and OpenBLAS. Under TG_CPU_CAPABILITY=avx2
// or baseline (unit_kernels_avx2, _baseline) ours is off and the tests of it report a skip.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "core/error.h"
#include "cpu/blas_gemm.h"
#include "cpu/sgemm_avx512.h"
#include "cpu/sgemm_choice.h"
#include "ops_test_helpers.h"
#include "core/parallel.h"
#include "thread_count.h"

namespace {

// Puts the choice back after a test that sets it.
struct GemmChoice {
  tg::cpu::CpuGemm saved = tg::cpu::cpu_gemm();
  explicit GemmChoice(tg::cpu::CpuGemm choice) { tg::cpu::set_cpu_gemm(choice); }
  ~GemmChoice() { tg::cpu::set_cpu_gemm(saved); }
};

constexpr float kPadding = 12345.0f;  // in the spare columns of c: must survive every product

struct Problem {
  bool ta, tb;
  int64_t m, n, k;
  int64_t lda, ldb, ldc;
  std::vector<float> a, b, c;

  Problem(bool ta_, bool tb_, int64_t m_, int64_t n_, int64_t k_, int pad, unsigned seed)
      : ta(ta_), tb(tb_), m(m_), n(n_), k(k_) {
    const int64_t a_rows = ta ? k : m, a_cols = ta ? m : k, b_rows = tb ? n : k, b_cols = tb ? k : n;
    lda = a_cols + pad;
    ldb = b_cols + 2 * pad;
    ldc = n + pad + 1;
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    a.resize(static_cast<size_t>(a_rows * lda) + 1);
    b.resize(static_cast<size_t>(b_rows * ldb) + 1);
    c.assign(static_cast<size_t>(m * ldc), kPadding);
    for (float& x : a) x = uniform(rng);
    for (float& x : b) x = uniform(rng);
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) c[i * ldc + j] = uniform(rng);
    }
  }
  float a_at(int64_t i, int64_t p) const { return ta ? a[p * lda + i] : a[i * lda + p]; }
  float b_at(int64_t p, int64_t j) const { return tb ? b[j * ldb + p] : b[p * ldb + j]; }
};

// Runs `product` on p and checks every element against the double-precision result, within
// a bound on float's rounding in a sum of k products; c's spare columns must be untouched.
template <typename Product>
void check_against_reference(Problem& p, float alpha, float beta, const Product& product) {
  CAPTURE(p.ta);
  CAPTURE(p.tb);
  CAPTURE(p.m);
  CAPTURE(p.n);
  CAPTURE(p.k);
  CAPTURE(alpha);
  CAPTURE(beta);
  if (beta == 0.0f) {  // c is not read: its NaNs must not reach the result
    for (int64_t i = 0; i < p.m; ++i) {
      for (int64_t j = 0; j < p.n; ++j) p.c[i * p.ldc + j] = std::numeric_limits<float>::quiet_NaN();
    }
  }
  const std::vector<float> before = p.c;
  product(p.ta, p.tb, p.m, p.n, p.k, alpha, p.a.data(), p.lda, p.b.data(), p.ldb, beta, p.c.data(), p.ldc);
  int64_t wrong = 0;
  for (int64_t i = 0; i < p.m; ++i) {
    for (int64_t j = 0; j < p.n; ++j) {
      double sum = 0, magnitude = 0;
      for (int64_t q = 0; q < p.k; ++q) {
        const double term = static_cast<double>(p.a_at(i, q)) * static_cast<double>(p.b_at(q, j));
        sum += term;
        magnitude += std::fabs(term);
      }
      const double old = beta == 0.0f ? 0.0 : static_cast<double>(before[i * p.ldc + j]);
      const double expected = alpha * sum + beta * old;
      const double bound =
          4.0 * (static_cast<double>(p.k) + 2.0) * std::numeric_limits<float>::epsilon() *
              (std::fabs(alpha) * magnitude + std::fabs(beta * old)) +
          1e-30;
      const double got = p.c[i * p.ldc + j];
      if (!(std::fabs(got - expected) <= bound)) ++wrong;
    }
    for (int64_t j = p.n; j < p.ldc; ++j) wrong += p.c[i * p.ldc + j] == kPadding ? 0 : 1;
  }
  CHECK(wrong == 0);
}

// Reports the skip of a test of tensorgen's product where it does not run.
bool skipped_without_avx512() {
  if (tg::cpu::tensorgen_sgemm_supported()) return false;
  MESSAGE("skipped: this CPU, or TG_CPU_CAPABILITY, has no AVX-512");
  return true;
}

const auto ours = [](auto... args) { tg::cpu::sgemm_avx512(args...); };
const auto through_blas_gemm = [](auto... args) { tg::cpu::blas_gemm(args...); };

}  // namespace

TEST_CASE("sgemm: tensorgen's product equals a double-precision reference (odd shapes, k = 0, both transposes, "
          "padded leading dimensions, alpha and beta, NaN in c with beta = 0)") {
  if (skipped_without_avx512()) return;
  unsigned seed = 1;
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      for (int64_t m : {1, 3, 13, 14, 15, 29, 70}) {
        for (int64_t n : {1, 5, 16, 17, 33, 65}) {
          for (int64_t k : {0, 1, 7, 16, 17, 70}) {
            Problem p(ta, tb, m, n, k, static_cast<int>(seed % 3) * 5, seed);
            const float alpha = seed % 2 == 0 ? 1.0f : -0.75f, beta = seed % 3 == 0 ? 0.0f : 0.5f;
            check_against_reference(p, alpha, beta, ours);
            ++seed;
          }
        }
      }
    }
  }
}

TEST_CASE("sgemm: products larger than one block of k, of a's rows and of b's columns") {
  if (skipped_without_avx512()) return;
  struct Shape {
    int64_t m, n, k;
  };
  // k crosses the 256-deep blocks twice; m crosses the 336-row a block; n the 2048-column b block.
  for (const Shape& s : {Shape{20, 40, 600}, Shape{700, 40, 30}, Shape{3, 2100, 5}, Shape{45, 50, 513}}) {
    for (bool ta : {false, true}) {
      for (bool tb : {false, true}) {
        Problem p(ta, tb, s.m, s.n, s.k, 3, 7);
        check_against_reference(p, 1.0f, 0.0f, ours);
        Problem q(ta, tb, s.m, s.n, s.k, 0, 8);
        check_against_reference(q, 2.0f, -1.5f, ours);
      }
    }
  }
}

TEST_CASE("sgemm: alpha = 0 only scales c, reading neither operand") {
  if (skipped_without_avx512()) return;
  Problem p(false, false, 9, 20, 11, 0, 3);
  for (float& x : p.a) x = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> before = p.c;
  tg::cpu::sgemm_avx512(false, false, p.m, p.n, p.k, 0.0f, p.a.data(), p.lda, p.b.data(), p.ldb, 2.0f, p.c.data(),
                        p.ldc);
  for (size_t i = 0; i < p.c.size(); ++i) {
    CHECK(p.c[i] == (before[i] == kPadding ? kPadding : 2.0f * before[i]));
  }
}

TEST_CASE("sgemm: the result has the same bits at 1, 2 and 3 threads, and equals one uncut product") {
  if (skipped_without_avx512()) return;
  GemmChoice choice(tg::cpu::CpuGemm::kTensorgen);
  struct Shape {
    int64_t m, n, k;
  };
  // Cut by rows, by columns, into unequal blocks, with k over several blocks, and (400 rows)
  // a whole that packs b where its blocks read it in place (Note [Reading b in place]).
  for (const Shape& s :
       {Shape{300, 70, 129}, Shape{50, 401, 133}, Shape{257, 263, 37}, Shape{333, 90, 700}, Shape{400, 200, 50}}) {
    CAPTURE(s.m);
    CAPTURE(s.n);
    CHECK(tg::cpu::gemm_split(s.m, s.n, s.k, 2).count == 2);
    CHECK(tg::cpu::gemm_split(s.m, s.n, s.k, 3).count >= 2);
    for (bool ta : {false, true}) {
      for (bool tb : {false, true}) {
        Problem whole(ta, tb, s.m, s.n, s.k, 1, 11);
        tg::cpu::sgemm_avx512(ta, tb, s.m, s.n, s.k, 1.0f, whole.a.data(), whole.lda, whole.b.data(), whole.ldb,
                              0.5f, whole.c.data(), whole.ldc);
        for (int threads : {1, 2, 3}) {
          CAPTURE(threads);
          ThreadCount count(threads);
          Problem p(ta, tb, s.m, s.n, s.k, 1, 11);
          tg::cpu::blas_gemm(ta, tb, s.m, s.n, s.k, 1.0f, p.a.data(), p.lda, p.b.data(), p.ldb, 0.5f, p.c.data(),
                             p.ldc);
          CHECK(std::memcmp(p.c.data(), whole.c.data(), p.c.size() * sizeof(float)) == 0);
        }
      }
    }
  }
}

TEST_CASE("sgemm: TG_CPU_GEMM is 'tensorgen' or 'openblas', anything else a ValueError naming both") {
  CHECK(tg::cpu::parse_cpu_gemm(nullptr) == tg::cpu::CpuGemm::kTensorgen);
  CHECK(tg::cpu::parse_cpu_gemm("tensorgen") == tg::cpu::CpuGemm::kTensorgen);
  CHECK(tg::cpu::parse_cpu_gemm("openblas") == tg::cpu::CpuGemm::kOpenblas);
  for (const char* bad : {"", "OpenBLAS", "mkl", "tensorgen "}) {
    CAPTURE(bad);
    try {
      tg::cpu::parse_cpu_gemm(bad);
      FAIL("no error for a malformed TG_CPU_GEMM");
    } catch (const tg::ValueError& e) {
      CHECK(std::string(e.what()).find("TG_CPU_GEMM must be 'tensorgen' or 'openblas'") != std::string::npos);
      CHECK(std::string(e.what()).find(std::string("got '") + bad + "'") != std::string::npos);
    }
  }
}

TEST_CASE("sgemm: the switch runs the chosen code, and both give the reference's result") {
  for (tg::cpu::CpuGemm requested : {tg::cpu::CpuGemm::kOpenblas, tg::cpu::CpuGemm::kTensorgen}) {
    GemmChoice choice(requested);
    const bool runs_ours = requested == tg::cpu::CpuGemm::kTensorgen && tg::cpu::tensorgen_sgemm_supported();
    CAPTURE(tg::cpu::cpu_gemm_name(requested));
    CHECK(tg::cpu::cpu_gemm() == (runs_ours ? tg::cpu::CpuGemm::kTensorgen : tg::cpu::CpuGemm::kOpenblas));
    ThreadCount count(2);
    Problem p(true, false, 300, 70, 129, 2, 5);  // cut in two blocks on two threads
    const int64_t products_before = tg::cpu::tensorgen_sgemm_products();
    check_against_reference(p, 1.5f, 0.0f, through_blas_gemm);
    CHECK(tg::cpu::tensorgen_sgemm_products() - products_before == (runs_ours ? 1 : 0));
    if (requested == tg::cpu::CpuGemm::kTensorgen && !runs_ours) {
      MESSAGE("tensorgen's product not run: this CPU, or TG_CPU_CAPABILITY, has no AVX-512");
    }
  }
}

TEST_CASE("sgemm: a product whose b rows come from a table equals the double-precision reference") {
  if (skipped_without_avx512()) return;
  struct Shape {
    int64_t m, n, k;
  };
  // Every tile height, odd sizes, and k over two blocks (as a 3 x 3 convolution of 32 channels).
  for (const Shape& s : {Shape{64, 128, 288}, Shape{5, 37, 19}, Shape{29, 70, 300}, Shape{15, 9, 3}}) {
    CAPTURE(s.m);
    CAPTURE(s.n);
    CAPTURE(s.k);
    std::mt19937 rng(static_cast<unsigned>(s.m * 1000 + s.k));
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    const int64_t lda = s.k + 3, ldc = s.n + 2, pool = 4 * s.n + 50;  // b's rows overlap within the pool
    std::vector<float> a(static_cast<size_t>(s.m * lda)), b(static_cast<size_t>(pool));
    std::vector<int64_t> rows(static_cast<size_t>(s.k));
    for (float& x : a) x = uniform(rng);
    for (float& x : b) x = uniform(rng);
    for (int64_t& r : rows) r = static_cast<int64_t>(rng() % static_cast<unsigned>(pool - s.n + 1));
    std::vector<float> c(static_cast<size_t>(s.m * ldc), kPadding);
    tg::cpu::sgemm_avx512_row_table(s.m, s.n, s.k, 1.0f, a.data(), lda, b.data(), rows.data(), 0.0f, c.data(), ldc);
    int64_t wrong = 0;
    for (int64_t i = 0; i < s.m; ++i) {
      for (int64_t j = 0; j < s.n; ++j) {
        double sum = 0, magnitude = 0;
        for (int64_t p = 0; p < s.k; ++p) {
          const double term = static_cast<double>(a[i * lda + p]) * static_cast<double>(b[rows[p] + j]);
          sum += term;
          magnitude += std::fabs(term);
        }
        const double bound =
            4.0 * (static_cast<double>(s.k) + 2.0) * std::numeric_limits<float>::epsilon() * magnitude + 1e-30;
        wrong += std::fabs(c[i * ldc + j] - sum) <= bound ? 0 : 1;
      }
      for (int64_t j = s.n; j < ldc; ++j) wrong += c[i * ldc + j] == kPadding ? 0 : 1;
    }
    CHECK(wrong == 0);
  }
}
