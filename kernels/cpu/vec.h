// Float SIMD vectors through the compiler's vector extensions (GCC and Clang), for the loops
// that need a vector exp, max or lane-parallel sum; loops the compiler vectorises by itself
// (plain elementwise arithmetic) do not need them. No intrinsics: the same code is SSE2 or
// NEON for Vec4, AVX2 with FMA for Vec8 inside a function compiled for it (TG_TARGET_AVX2),
// and AVX-512 for Vec16 inside one compiled for that (TG_TARGET_AVX512). capability() picks
// the widest at run time, and with_widest_vec runs a generic body with it: see Note [Vector
// widths].
//
// Every helper is always_inline, and bit casts use the builtin rather than std::bit_cast: no
// function that takes or returns a vector is ever called, even at -O0. A call from AVX2 code
// to a 32-byte-vector function compiled without AVX would break the calling convention
// (returned in ymm0 on one side, through memory on the other): that is what GCC's -Wpsabi
// note is about, and why the build can turn it off. UBSan caught a std::bit_cast call at -O0.
//
// Note [Vector widths]
// Three copies of each vector loop exist: Vec4 (SSE2, any x86-64; NEON elsewhere), Vec8 in
// a function marked TG_TARGET_AVX2, Vec16 in one marked TG_TARGET_AVX512. The loop and its
// math are written once, generic over V; with_vec(capability, body) instantiates the body
// inside the function of that width, so call sites hold no per-width copies. The body is a
// generic lambda marked TG_VEC_LAMBDA: always inlined, so its code is compiled for the
// caller's instruction set (a default-target callee may be inlined into a target function,
// not the reverse). The environment variable TG_CPU_CAPABILITY=baseline|avx2|avx512 caps
// the width (as ATen's ATEN_CPU_CAPABILITY does; a level the CPU lacks, or an unknown
// name, leaves the CPU's own level); unit_kernels runs under each. Why AVX-512 pays here:
// the transcendental loops (exp, tanh, sigmoid, gelu, softmax) were bound by instruction
// throughput, and 16 lanes halve the instructions per element (LibTorch 2.x runs its
// AVX-512 Sleef code on this CPU); tanh and gelu over 1M floats now run at one thread's
// memory copy speed (docs/performance.md has the figures).
// One pitfall of GCC 12: a generic helper (compiled outside the target function, then
// inlined) that combines two comparison masks, as in `((a > b) | (a != a)) ? a : b`, is
// turned lane by lane into scalar code for Vec16 (AVX-512 compares give mask registers, not
// the int vectors the helper was written with): a NaN-propagating max once made softmax
// 5x slower that way. Selects on one comparison each are compiled well; check the object code
// (`objdump -d`, look for vcomiss/seta in a run_vec16 function) after adding such a helper.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>

#define TG_VEC_INLINE [[gnu::always_inline]] inline
// For the generic lambdas given to with_vec / with_widest_vec (after the parameter list).
#define TG_VEC_LAMBDA __attribute__((always_inline))

#if defined(__x86_64__) && defined(__GNUC__)
#define TG_TARGET_AVX2 __attribute__((target("avx2,fma")))
#define TG_TARGET_AVX512 __attribute__((target("avx512f,avx512dq,avx512vl,avx512bw,avx2,fma")))
// AVX2 without FMA: for code that must round as the baseline build does (no fused a * b + c).
#define TG_TARGET_AVX2_NO_FMA __attribute__((target("avx2")))
#else
#define TG_TARGET_AVX2
#define TG_TARGET_AVX512
#define TG_TARGET_AVX2_NO_FMA
#endif

namespace tg::cpu::vec {

using Vec4 = float __attribute__((vector_size(16)));
using Vec8 = float __attribute__((vector_size(32)));
using Vec16 = float __attribute__((vector_size(64)));

template <typename V>
inline constexpr int64_t kLanes = sizeof(V) / sizeof(float);
template <typename V>
using MaskOf = decltype(V{} < V{});  // int32 lanes, all ones where true

// The vector code levels, in order: Vec4, Vec8 (AVX2 + FMA), Vec16 (AVX-512 F/DQ/VL/BW).
enum class Capability { kBaseline = 0, kAvx2 = 1, kAvx512 = 2 };

// The widest level this CPU runs, whatever TG_CPU_CAPABILITY says.
inline Capability supported_capability() {
#if defined(__x86_64__) && defined(__GNUC__)
  static const Capability supported = [] {
    if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) return Capability::kBaseline;
    const bool avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
                        __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bw");
    return avx512 ? Capability::kAvx512 : Capability::kAvx2;
  }();
  return supported;
#else
  return Capability::kBaseline;
#endif
}

// The level the kernels run: the CPU's, capped by TG_CPU_CAPABILITY (Note [Vector widths]).
inline Capability capability() {
  static const Capability chosen = [] {
    const Capability supported = supported_capability();
    const char* requested = std::getenv("TG_CPU_CAPABILITY");
    if (requested == nullptr) return supported;
    Capability cap = supported;
    if (std::strcmp(requested, "baseline") == 0 || std::strcmp(requested, "default") == 0) cap = Capability::kBaseline;
    if (std::strcmp(requested, "avx2") == 0) cap = Capability::kAvx2;
    return cap < supported ? cap : supported;
  }();
  return chosen;
}

// Whether the kernels run TG_TARGET_AVX2 code (also true at the AVX-512 level).
inline bool has_avx2_fma() { return capability() >= Capability::kAvx2; }

// body.template operator()<V>() with V the vector of `level`, inside a function compiled for
// its instruction set; `level` must not exceed supported_capability(). body is a generic
// lambda marked TG_VEC_LAMBDA (Note [Vector widths]).
template <typename Body>
TG_TARGET_AVX512 void run_vec16(const Body& body) {
  body.template operator()<Vec16>();
}
template <typename Body>
TG_TARGET_AVX2 void run_vec8(const Body& body) {
  body.template operator()<Vec8>();
}
template <typename Body>
void with_vec(Capability level, const Body& body) {
  switch (level) {
    case Capability::kAvx512: return run_vec16(body);
    case Capability::kAvx2: return run_vec8(body);
    case Capability::kBaseline: break;
  }
  body.template operator()<Vec4>();
}
template <typename Body>
void with_widest_vec(const Body& body) {
  with_vec(capability(), body);
}

template <typename V>
TG_VEC_INLINE V broadcast(float x) {
  return V{} + x;
}
template <typename V>
TG_VEC_INLINE V load(const float* p) {
  V v;
  std::memcpy(&v, p, sizeof v);  // unaligned
  return v;
}
template <typename V>
TG_VEC_INLINE void store(float* p, V v) {
  std::memcpy(p, &v, sizeof v);
}

// The first n < kLanes<V> elements at p, the other lanes `fill`; and the store of n lanes.
template <typename V>
TG_VEC_INLINE V load_partial(const float* p, int64_t n, float fill) {
  V v = broadcast<V>(fill);
  for (int64_t j = 0; j < n; ++j) v[j] = p[j];
  return v;
}
template <typename V>
TG_VEC_INLINE void store_partial(float* p, V v, int64_t n) {
  for (int64_t j = 0; j < n; ++j) p[j] = v[j];
}

// max(acc, x) as one maxps: acc where either is NaN, so NaN inputs x are skipped (for
// accumulators that start as a number, where a NaN input shows up later anyway, as in
// softmax's sum). A NaN-propagating max as one select on (a > b) | (a != a) would be
// scalarised for Vec16: see Note [Vector widths] on combined masks.
template <typename V>
TG_VEC_INLINE V max_skipping_nan(V acc, V x) {
  return x > acc ? x : acc;
}

template <typename V>
TG_VEC_INLINE float horizontal_max(V v) {
  float m = v[0];
  for (int64_t j = 1; j < kLanes<V>; ++j) m = (v[j] > m || v[j] != v[j]) ? v[j] : m;
  return m;
}

template <typename V>
TG_VEC_INLINE double horizontal_sum(V v) {
  double total = 0;
  for (int64_t j = 0; j < kLanes<V>; ++j) total += v[j];
  return total;
}

namespace detail {

// exp(r) for |r| <= ln2/2: the polynomial of exp and exp_of_nonpositive.
template <typename V>
TG_VEC_INLINE V exp_polynomial(V r) {
  V p = broadcast<V>(1.3843649067e-3f);
  p = p * r + 8.3741564304e-3f;
  p = p * r + 4.1668001562e-2f;
  p = p * r + 1.6666431725e-1f;
  p = p * r + 4.9999994040e-1f;
  p = p * r + 1.0f;
  return p * r + 1.0f;
}

}  // namespace detail

// exp(x) within 2 ulp for normal results: x = n ln2 + r with |r| <= ln2/2, exp(r) by a
// degree-6 polynomial with 1 + r + ... (a relative-minimax fit of 0.02 eps made for this
// function: the Cephes degree-7 form cost two more instructions for accuracy float cannot
// hold), 2^n put into the exponent bits. Results in the subnormal range are subnormals, as
// std::exp gives (the scale is two normal factors, so the one rounding is the last
// multiply's); below half the smallest subnormal, 0 (-inf gives 0, as softmax masks need,
// computed from input 0 so that no subnormal arithmetic, slow on x86, happens for it).
// Inputs above 89 are clamped to 89, whose result overflows to inf like every x above
// log(FLT_MAX) = 88.72; NaN stays NaN (it passes every step unchanged).
template <typename V>
TG_VEC_INLINE V exp(V x) {
  constexpr float kMinInput = -103.97208f;  // log(2^-150): exp rounds to 0 below
  const MaskOf<V> underflow = x < kMinInput;
  // `89 < x ? 89 : x` is one minps (x where x is NaN).
  const V clamped = underflow ? broadcast<V>(0.0f) : (89.0f < x ? broadcast<V>(89.0f) : x);
  // Rounding to the nearest integer by adding 1.5 * 2^23: n's bits end up in t's mantissa.
  constexpr float kRound = 12582912.0f;
  const V t = clamped * 1.44269504088896341f + kRound;
  const V n = t - kRound;
  V r = clamped - n * 0.693359375f;  // ln2 split in two for an exact product with n
  r = r - n * -2.12194440e-4f;
  const V p = detail::exp_polynomial(r);
  // The scale 2^n: n + 127 in the exponent field. n is within [-150, 128] here, so it is
  // split into two normal factors 2^(n/2) and 2^(n - n/2); 2^128 overflows to inf.
  using Mask = MaskOf<V>;
  const Mask n_int = __builtin_bit_cast(Mask, t) - 0x4B400000;
  const Mask half = n_int >> 1;
  const Mask scale_a = (half + 127) << 23;
  const Mask scale_b = (n_int - half + 127) << 23;
  const V result = p * __builtin_bit_cast(V, scale_a) * __builtin_bit_cast(V, scale_b);
  return underflow ? broadcast<V>(0.0f) : result;
}

// exp(x) for x <= 0, as softmax's x - max and log_softmax's outputs are: exp's accuracy for
// results of FLT_MIN and more, 0 below (where a softmax output would be under FLT_MIN / sum,
// sum >= 1), so that 2^n is one factor: five instructions fewer than exp.
// Also right for 0 < x <= 88.37 (n <= 127); NaN stays NaN.
template <typename V>
TG_VEC_INLINE V exp_of_nonpositive(V x) {
  constexpr float kMinNormalInput = -87.33654f;  // log(FLT_MIN)
  const MaskOf<V> underflow = x < kMinNormalInput;
  const V clamped = underflow ? broadcast<V>(0.0f) : x;
  constexpr float kRound = 12582912.0f;
  const V t = clamped * 1.44269504088896341f + kRound;
  const V n = t - kRound;
  V r = clamped - n * 0.693359375f;
  r = r - n * -2.12194440e-4f;
  const V p = detail::exp_polynomial(r);
  using Mask = MaskOf<V>;
  const Mask scale = (__builtin_bit_cast(Mask, t) + (127 - 0x4B400000)) << 23;
  const V result = p * __builtin_bit_cast(V, scale);
  return underflow ? broadcast<V>(0.0f) : result;
}

// tanh(x) within 3.1 float epsilons relative (2.6 with FMA; measured over every 37th float
// of [0, 12)): x P(x^2) / Q(x^2) with P and Q of degree 4 and positive coefficients (so
// Horner's rule does not cancel), a minimax fit of relative error 0.18 eps on [0, 9] made for
// this function (P(0) = Q(0) = 1, so tiny and subnormal x, and -0, come back unchanged).
// Beyond 9, where tanh rounds to +-1 in float, the input is clamped to 9, at which the ratio
// is exactly 1. One division and no exp: the earlier form (a polynomial below 0.625,
// 1 - 2 / (exp(2|x|) + 1) above) was 1.3 ulp but cost three times the instructions.
// NaN stays NaN (it fails both clamp tests).
template <typename V>
TG_VEC_INLINE V tanh(V x) {
  constexpr float kClamp = 9.0f;
  const V c = x > kClamp ? broadcast<V>(kClamp) : (x < -kClamp ? broadcast<V>(-kClamp) : x);
  const V z = c * c;
  V p = broadcast<V>(1.341979594e-08f);
  p = p * z + 2.066126581e-05f;
  p = p * z + 3.498997772e-03f;
  p = p * z + 1.338398159e-01f;
  p = p * z + 1.0f;
  V q = broadcast<V>(7.804724760e-07f);
  q = q * z + 3.291039902e-04f;
  q = q * z + 2.589021437e-02f;
  q = q * z + 4.671730399e-01f;
  q = q * z + 1.0f;
  return c * p / q;
}

// erf(x) within 3 ulp: an odd rational approximation x P(x^2) / Q(x^2) on [-4, 4] (the
// minimax coefficients Eigen and XLA use), the input clamped there: beyond 4, erf is +-1 in
// float. One division and no exp. NaN stays NaN.
template <typename V>
TG_VEC_INLINE V erf(V x) {
  const V clamped = x > 4.0f ? broadcast<V>(4.0f) : (x < -4.0f ? broadcast<V>(-4.0f) : x);
  const V z = clamped * clamped;
  V p = broadcast<V>(-2.72614225801306e-10f);
  p = p * z + 2.77068142495902e-08f;
  p = p * z + -2.10102402082508e-06f;
  p = p * z + -5.69250639462346e-05f;
  p = p * z + -7.34990630326855e-04f;
  p = p * z + -2.95459980854025e-03f;
  p = p * z + -1.60960333262415e-02f;
  V q = broadcast<V>(-1.45660718464996e-05f);
  q = q * z + -2.13374055278905e-04f;
  q = q * z + -1.68282697438203e-03f;
  q = q * z + -7.37332916720468e-03f;
  q = q * z + -1.42647390514189e-02f;
  return clamped * p / q;
}

}  // namespace tg::cpu::vec
