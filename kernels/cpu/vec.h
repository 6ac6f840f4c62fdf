// Vec: four floats in one SIMD register, through the compiler's vector extensions (GCC and
// Clang), so the loops that need a vector exp, max or lane-parallel sum are vectorised on
// every target without intrinsics: SSE2 on x86-64, NEON on AArch64. Loops that the compiler
// vectorises by itself (plain elementwise arithmetic) do not need it.
//
// 16 bytes is the baseline width of both targets; a wider type would change the calling
// convention of these helpers depending on -m flags (-Wpsabi). Loops unroll over two or more
// Vecs for instruction-level parallelism instead.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <limits>

namespace tg::cpu::vec {

using Vec = float __attribute__((vector_size(16)));
using Mask = int32_t __attribute__((vector_size(16)));
inline constexpr int64_t kLanes = 4;

inline Vec broadcast(float x) { return Vec{x, x, x, x}; }
inline Vec load(const float* p) {
  Vec v;
  std::memcpy(&v, p, sizeof v);  // unaligned
  return v;
}
inline void store(float* p, Vec v) { std::memcpy(p, &v, sizeof v); }

// The first n < kLanes elements at p, the other lanes `fill`.
inline Vec load_partial(const float* p, int64_t n, float fill) {
  Vec v = broadcast(fill);
  for (int64_t j = 0; j < n; ++j) v[j] = p[j];
  return v;
}

// f(k, x[k .. k + kLanes), lanes) over x[0, n) in Vecs; the last may be partial, its
// missing lanes `fill` (a value that leaves the caller's reduction unchanged).
template <typename F>
void for_each_vec(const float* x, int64_t n, float fill, const F& f) {
  int64_t k = 0;
  for (; k + kLanes <= n; k += kLanes) f(k, load(x + k), kLanes);
  if (k < n) f(k, load_partial(x + k, n - k, fill), n - k);
}

// Stores v's first `lanes` lanes at p (all of them for a whole Vec).
inline void store_lanes(float* p, Vec v, int64_t lanes) {
  if (lanes == kLanes) {
    store(p, v);
  } else {
    for (int64_t j = 0; j < lanes; ++j) p[j] = v[j];
  }
}

// max(a, b), NaN if either is NaN (torch.max semantics).
inline Vec max_propagate_nan(Vec a, Vec b) {
  const Mask pick_a = (a > b) | (a != a);
  return pick_a ? a : b;
}

inline float horizontal_max(Vec v) {
  float m = v[0];
  for (int j = 1; j < kLanes; ++j) m = (v[j] > m || v[j] != v[j]) ? v[j] : m;
  return m;
}

inline double horizontal_sum(Vec v) {
  return (static_cast<double>(v[0]) + v[1]) + (static_cast<double>(v[2]) + v[3]);
}

// exp(x) within 2 ulp for normal results: x = n ln2 + r with |r| <= ln2/2, exp(r) by a
// degree-7 polynomial (Cephes' expf coefficients), 2^n put into the exponent bits. Results
// below float's normal range are 0 (-inf gives 0, as softmax masks need); above it, inf;
// NaN stays NaN (it passes every step unchanged and fails both range tests).
inline Vec exp(Vec x) {
  constexpr float kMaxInput = 88.72283f;   // log(FLT_MAX)
  constexpr float kMinInput = -87.33654f;  // log(FLT_MIN)
  const Mask overflow = x > kMaxInput;
  const Mask underflow = x < kMinInput;
  const Vec clamped = underflow ? broadcast(kMinInput) : (overflow ? broadcast(kMaxInput) : x);
  // Rounding to the nearest integer by adding 1.5 * 2^23: n's bits end up in t's mantissa.
  constexpr float kRound = 12582912.0f;
  const Vec t = clamped * 1.44269504088896341f + kRound;
  const Vec n = t - kRound;
  Vec r = clamped - n * 0.693359375f;  // ln2 split in two for an exact product with n
  r = r - n * -2.12194440e-4f;
  Vec p = broadcast(1.9875691500e-4f);
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * r * r + r + 1.0f;
  // The scale 2^n: n + 127 in the exponent field. n is within [-126, 128] here, so the
  // n = 128 case is split into two multiplies by 2^(n/2).
  const Mask n_int = std::bit_cast<Mask>(t) - 0x4B400000;
  const Mask half = n_int >> 1;
  const Mask scale_a = (half + 127) << 23;
  const Mask scale_b = (n_int - half + 127) << 23;
  const Vec result = p * std::bit_cast<Vec>(scale_a) * std::bit_cast<Vec>(scale_b);
  return underflow ? broadcast(0.0f) : (overflow ? broadcast(std::numeric_limits<float>::infinity()) : result);
}

}  // namespace tg::cpu::vec
