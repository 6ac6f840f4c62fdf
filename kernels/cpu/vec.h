// Float SIMD vectors through the compiler's vector extensions (GCC and Clang), for the loops
// that need a vector exp, max or lane-parallel sum; loops the compiler vectorises by itself
// (plain elementwise arithmetic) do not need them. No intrinsics: the same code is SSE2 or
// NEON for Vec4, and AVX2 with FMA for Vec8 inside a function compiled for it (TG_TARGET_AVX2,
// chosen at run time with has_avx2_fma()).
//
// Every helper is always_inline, and bit casts use the builtin rather than std::bit_cast: no
// function that takes or returns a vector is ever called, even at -O0. A call from AVX2 code
// to a 32-byte-vector function compiled without AVX would break the calling convention
// (returned in ymm0 on one side, through memory on the other): that is what GCC's -Wpsabi
// note is about, and why the build can turn it off. UBSan caught a std::bit_cast call at -O0.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>

#define TG_VEC_INLINE [[gnu::always_inline]] inline

#if defined(__x86_64__) && defined(__GNUC__)
#define TG_TARGET_AVX2 __attribute__((target("avx2,fma")))
#else
#define TG_TARGET_AVX2
#endif

namespace tg::cpu::vec {

using Vec4 = float __attribute__((vector_size(16)));
using Vec8 = float __attribute__((vector_size(32)));

template <typename V>
inline constexpr int64_t kLanes = sizeof(V) / sizeof(float);
template <typename V>
using MaskOf = decltype(V{} < V{});  // int32 lanes, all ones where true

// Whether this CPU runs TG_TARGET_AVX2 code, unless the environment variable
// TG_CPU_CAPABILITY=baseline asks for the 4-lane code (as ATen's ATEN_CPU_CAPABILITY does;
// the tests run both ways).
inline bool has_avx2_fma() {
#if defined(__x86_64__) && defined(__GNUC__)
  static const bool supported = [] {
    const char* capability = std::getenv("TG_CPU_CAPABILITY");
    if (capability != nullptr && std::strcmp(capability, "baseline") == 0) return false;
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  }();
  return supported;
#else
  return false;
#endif
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

// max(a, b), NaN if either is NaN (torch.max semantics).
template <typename V>
TG_VEC_INLINE V max_propagate_nan(V a, V b) {
  const MaskOf<V> pick_a = (a > b) | (a != a);
  return pick_a ? a : b;
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

// exp(x) within 2 ulp for normal results: x = n ln2 + r with |r| <= ln2/2, exp(r) by a
// degree-7 polynomial (Cephes' expf coefficients), 2^n put into the exponent bits. Results
// below float's normal range are 0 (-inf gives 0, as softmax masks need); above it, inf;
// NaN stays NaN (it passes every step unchanged and fails both range tests).
template <typename V>
TG_VEC_INLINE V exp(V x) {
  using Mask = MaskOf<V>;
  constexpr float kMaxInput = 88.72283f;   // log(FLT_MAX)
  constexpr float kMinInput = -87.33654f;  // log(FLT_MIN)
  const Mask overflow = x > kMaxInput;
  const Mask underflow = x < kMinInput;
  const V clamped = underflow ? broadcast<V>(kMinInput) : (overflow ? broadcast<V>(kMaxInput) : x);
  // Rounding to the nearest integer by adding 1.5 * 2^23: n's bits end up in t's mantissa.
  constexpr float kRound = 12582912.0f;
  const V t = clamped * 1.44269504088896341f + kRound;
  const V n = t - kRound;
  V r = clamped - n * 0.693359375f;  // ln2 split in two for an exact product with n
  r = r - n * -2.12194440e-4f;
  V p = broadcast<V>(1.9875691500e-4f);
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * r * r + r + 1.0f;
  // The scale 2^n: n + 127 in the exponent field. n is within [-126, 128] here, so the
  // n = 128 case is split into two multiplies by 2^(n/2).
  const Mask n_int = __builtin_bit_cast(Mask, t) - 0x4B400000;
  const Mask half = n_int >> 1;
  const Mask scale_a = (half + 127) << 23;
  const Mask scale_b = (n_int - half + 127) << 23;
  const V result = p * __builtin_bit_cast(V, scale_a) * __builtin_bit_cast(V, scale_b);
  return underflow ? broadcast<V>(0.0f) : (overflow ? broadcast<V>(std::numeric_limits<float>::infinity()) : result);
}

// |x|, and |magnitude| with the sign bit of sign_of.
template <typename V>
TG_VEC_INLINE V abs(V x) {
  using Mask = MaskOf<V>;
  return __builtin_bit_cast(V, __builtin_bit_cast(Mask, x) & 0x7FFFFFFF);
}
template <typename V>
TG_VEC_INLINE V copysign(V magnitude, V sign_of) {
  using Mask = MaskOf<V>;
  const Mask sign = __builtin_bit_cast(Mask, sign_of) & static_cast<int32_t>(0x80000000u);
  return __builtin_bit_cast(V, __builtin_bit_cast(Mask, abs(magnitude)) | sign);
}

// tanh(x) within a few ulp: Cephes' odd polynomial below |x| = 0.625, where the exp form
// would cancel; 1 - 2 / (exp(2|x|) + 1) with x's sign above (exactly +-1 once exp
// overflows). NaN stays NaN.
template <typename V>
TG_VEC_INLINE V tanh(V x) {
  const V z = x * x;
  V p = broadcast<V>(-5.70498872745e-3f);
  p = p * z + 2.06390887954e-2f;
  p = p * z + -5.37397155531e-2f;
  p = p * z + 1.33314422036e-1f;
  p = p * z + -3.33332819422e-1f;
  const V small = p * z * x + x;
  const V a = abs(x);
  const V large = copysign(1.0f - 2.0f / (exp(a + a) + 1.0f), x);
  return a < 0.625f ? small : large;
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
