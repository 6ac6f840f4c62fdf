// Vectorized<V>: a SIMD vector of floats (vec::Vec4 or vec::Vec8) with the arithmetic of a
// float, so that the formulas written once for scalars (activation_math.h: gelu, silu,
// sigmoid and their derivatives) also run a vector at a time. hd::exp, hd::erf and hd::tanh
// call the members below for it.
//
// Note [Vectorized across target attributes]
// The AVX2 loops (TG_TARGET_AVX2) call formulas compiled for the default target. A 32-byte
// vector passed by value between the two is in a register on one side and in memory on the
// other (GCC's -Wpsabi note). The user-provided copy constructor makes Vectorized
// "non-trivial for the purposes of calls", so it always travels by hidden reference, the same
// on both sides, even at -O0 where nothing is inlined; optimised builds inline it all away.
#pragma once

#include <type_traits>

#include "cpu/vec.h"

namespace tg::cpu {

template <typename V>
struct Vectorized {
  V v;

  TG_VEC_INLINE explicit Vectorized(V value) : v(value) {}
  // Implicit from a number (every lane), as the formulas' T(1) and T(0.5) need.
  template <typename Number>
    requires std::is_arithmetic_v<Number>
  TG_VEC_INLINE Vectorized(Number x) : v(vec::broadcast<V>(static_cast<float>(x))) {}
  TG_VEC_INLINE Vectorized(const Vectorized& other) : v(other.v) {}  // see the Note above
  TG_VEC_INLINE Vectorized& operator=(const Vectorized& other) {
    v = other.v;
    return *this;
  }

  TG_VEC_INLINE Vectorized exp() const { return Vectorized(vec::exp(v)); }
  TG_VEC_INLINE Vectorized erf() const { return Vectorized(vec::erf(v)); }
  TG_VEC_INLINE Vectorized tanh() const { return Vectorized(vec::tanh(v)); }

  TG_VEC_INLINE friend Vectorized operator+(const Vectorized& a, const Vectorized& b) { return Vectorized(a.v + b.v); }
  TG_VEC_INLINE friend Vectorized operator-(const Vectorized& a, const Vectorized& b) { return Vectorized(a.v - b.v); }
  TG_VEC_INLINE friend Vectorized operator*(const Vectorized& a, const Vectorized& b) { return Vectorized(a.v * b.v); }
  TG_VEC_INLINE friend Vectorized operator/(const Vectorized& a, const Vectorized& b) { return Vectorized(a.v / b.v); }
  TG_VEC_INLINE friend Vectorized operator-(const Vectorized& a) { return Vectorized(-a.v); }
};

}  // namespace tg::cpu
