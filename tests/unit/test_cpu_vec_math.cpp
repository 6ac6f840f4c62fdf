// Tests of the vector math of kernels/cpu/vec.h (exp, exp_of_nonpositive, tanh, erf, sigmoid via
// cpu::Vectorized) at each vector width: the code of each capability level (vec::with_vec
// compiles it for that instruction set, as the kernels run it) against double references,
// over float's range and at the special values (NaN, +-inf, +-0, subnormals, large |x|).
// Levels the CPU lacks are skipped, with the reason in the test's name.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

#include "activation_math.h"
#include "cpu/vec.h"
#include "cpu/vectorized.h"

namespace {

namespace vec = tg::cpu::vec;
using vec::Capability;

enum class Function { kExp, kExpOfNonpositive, kTanh, kErf, kSigmoid };

constexpr double kEps = std::numeric_limits<float>::epsilon();
constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr double kFloatMin = std::numeric_limits<float>::min();
const double kSmallestSubnormal = std::ldexp(1.0, -149);

// f at every element of x (a multiple of 16 long), a vector at a time with level's vectors.
std::vector<float> evaluate(Capability level, Function f, const std::vector<float>& x) {
  std::vector<float> y(x.size());
  vec::with_vec(level, [&]<typename V>() TG_VEC_LAMBDA {
    for (size_t i = 0; i < x.size(); i += vec::kLanes<V>) {
      const V v = vec::load<V>(x.data() + i);
      V r = v;
      switch (f) {
        case Function::kExp: r = vec::exp(v); break;
        case Function::kExpOfNonpositive: r = vec::exp_of_nonpositive(v); break;
        case Function::kTanh: r = vec::tanh(v); break;
        case Function::kErf: r = vec::erf(v); break;
        case Function::kSigmoid: r = tg::activation::sigmoid(tg::cpu::Vectorized<V>(v)).v; break;
      }
      vec::store(y.data() + i, r);
    }
  });
  return y;
}

// A sweep of [lo, hi) and the special values, padded with zeros to whole vectors.
std::vector<float> inputs(double lo, double hi, double step) {
  std::vector<float> x;
  for (double v = lo; v < hi; v += step) x.push_back(static_cast<float>(v));
  const float specials[] = {std::nanf(""), -std::nanf(""), kInf, -kInf, 0.0f, -0.0f, 1e-40f, -1e-40f,
                            std::numeric_limits<float>::min(), std::numeric_limits<float>::denorm_min(),
                            1e-6f, -1e-30f, 9.0f, -9.0f, 9.5f, 50.0f, -50.0f, 100.0f, -100.0f, 1e30f, -1e30f,
                            88.7f, 88.73f, -87.3f, -87.4f, -103.9f, -104.0f, -200.0f};
  x.insert(x.end(), std::begin(specials), std::end(specials));
  while (x.size() % 16 != 0) x.push_back(0.0f);
  return x;
}

// The error of y against the double reference ref, in units of tolerance(ref) (<= 1 passes).
template <typename Tolerance>
double scaled_error(float y, double ref, Tolerance tolerance) {
  if (std::isnan(ref)) return std::isnan(y) ? 0.0 : 1e9;
  if (std::fabs(ref) > std::numeric_limits<float>::max()) {
    return static_cast<double>(y) == std::copysign(kInf, ref) ? 0.0 : 1e9;  // overflows in float
  }
  if (ref == 0.0 && (y != 0.0f || std::signbit(y) != std::signbit(ref))) return 1e9;  // exact, sign included
  const double error = std::fabs(static_cast<double>(y) - ref);
  return error == 0.0 ? 0.0 : error / tolerance(ref);
}

// Checks f at `level` against reference within tolerance(ref) at every input; returns the
// worst error in units of the tolerance.
template <typename Reference, typename Tolerance>
void check_function(Capability level, Function f, const std::vector<float>& x, Reference reference,
                    Tolerance tolerance) {
  const std::vector<float> y = evaluate(level, f, x);
  double worst = 0;
  float worst_at = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double error = scaled_error(y[i], reference(static_cast<double>(x[i])), tolerance);
    if (!(error <= worst)) {
      worst = error;
      worst_at = x[i];
    }
  }
  CAPTURE(static_cast<int>(f));
  CAPTURE(worst_at);
  CHECK(worst <= 1.0);
}

void check_level(Capability level) {
  // exp: 2 eps relative for normal results; within one subnormal step below FLT_MIN (0
  // below half the smallest subnormal); inf above FLT_MAX.
  check_function(level, Function::kExp, inputs(-110.0, 92.0, 0.0173), [](double x) { return std::exp(x); },
                 [](double ref) { return std::max(2 * kEps * ref, kSmallestSubnormal); });
  // exp_of_nonpositive (softmax's exp): the same for results of FLT_MIN and more, 0 below;
  // its domain is x <= 88.37 (NaN included).
  std::vector<float> nonpositive = inputs(-110.0, 0.0, 0.0173);
  for (float& v : nonpositive) v = v > 88.37f ? 0.0f : v;
  check_function(level, Function::kExpOfNonpositive, nonpositive, [](double x) { return std::exp(x); },
                 [](double ref) { return std::max(2 * kEps * ref, kFloatMin); });
  const std::vector<float> x = inputs(-20.0, 20.0, 0.00731);
  // tanh: 4 eps relative (the rational form is 3.1 at worst); exactly +-1 from 9 on, and x
  // itself (subnormals, -0) near 0.
  check_function(level, Function::kTanh, x, [](double v) { return std::tanh(v); },
                 [](double ref) { return 4 * kEps * std::fabs(ref); });
  const std::vector<float> y = evaluate(level, Function::kTanh, x);
  for (size_t i = 0; i < x.size(); ++i) {
    if (std::fabs(x[i]) >= 9.0f) CHECK(std::fabs(y[i]) == 1.0f);
  }
  // erf: 3 eps relative; for subnormal x the product x P(x^2) (P(0) is -0.016) rounds in the
  // subnormal range, so the result keeps only a few bits there: within 64 subnormal steps.
  check_function(level, Function::kErf, x, [](double v) { return std::erf(v); },
                 [](double ref) { return std::max(3 * kEps * std::fabs(ref), 64 * kSmallestSubnormal); });
  // sigmoid = 1 / (1 + exp(-x)): 4 eps relative; 0 where exp(-x) overflows (below -88.7,
  // where the true value is under FLT_MIN).
  check_function(level, Function::kSigmoid, x, [](double v) { return 1.0 / (1.0 + std::exp(-v)); },
                 [](double ref) { return std::max(4 * kEps * ref, kFloatMin); });
}

}  // namespace

TEST_CASE("cpu vector math with 4 lanes (baseline) matches double references, special values included") {
  check_level(Capability::kBaseline);
}

TEST_CASE("cpu vector math with 8 lanes (AVX2 + FMA) matches double references (skipped on a CPU without AVX2)" *
          doctest::skip(vec::supported_capability() < Capability::kAvx2)) {
  check_level(Capability::kAvx2);
}

TEST_CASE("cpu vector math with 16 lanes (AVX-512) matches double references (skipped on a CPU without AVX-512)" *
          doctest::skip(vec::supported_capability() < Capability::kAvx512)) {
  check_level(Capability::kAvx512);
}

TEST_CASE("TG_CPU_CAPABILITY caps the level the kernels run at what the CPU supports") {
  const char* requested = std::getenv("TG_CPU_CAPABILITY");
  const Capability supported = vec::supported_capability();
  Capability expected = supported;
  if (requested != nullptr && (std::string(requested) == "baseline" || std::string(requested) == "default")) {
    expected = Capability::kBaseline;
  } else if (requested != nullptr && std::string(requested) == "avx2" && supported > Capability::kAvx2) {
    expected = Capability::kAvx2;
  }
  CHECK(vec::capability() == expected);
  CHECK(vec::has_avx2_fma() == (expected >= Capability::kAvx2));
}
