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

}  // namespace tg::cpu::vec
