// Half (IEEE binary16) and BFloat16 (the top 16 bits of a float32): storage types that
// convert to and from float. Arithmetic happens in float; rounding is to nearest even.
#pragma once

#include <cstdint>
#include <cstring>
#include <ostream>

namespace tg {

namespace detail {

inline uint32_t float_bits(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof(bits));
  return bits;
}

inline float bits_float(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof(f));
  return f;
}

// binary16 -> binary32, exact.
inline float half_bits_to_float(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t exponent = (h >> 10) & 0x1fu;
  uint32_t mantissa = h & 0x3ffu;
  if (exponent == 0x1f) return bits_float(sign | 0x7f800000u | (mantissa << 13));  // inf, nan
  if (exponent == 0) {
    if (mantissa == 0) return bits_float(sign);
    // Subnormal: value = mantissa * 2^-24.
    float magnitude = static_cast<float>(mantissa) * 5.9604644775390625e-8f;
    return sign ? -magnitude : magnitude;
  }
  return bits_float(sign | ((exponent + 112) << 23) | (mantissa << 13));
}

// binary32 -> binary16, round to nearest even, overflow to inf, nan stays nan.
inline uint16_t float_to_half_bits(float f) {
  uint32_t bits = float_bits(f);
  uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  uint32_t abs_bits = bits & 0x7fffffffu;
  if (abs_bits >= 0x7f800000u) return sign | (abs_bits > 0x7f800000u ? 0x7e00u : 0x7c00u);
  if (abs_bits >= 0x477ff000u) return sign | 0x7c00u;  // rounds to >= 65520: inf
  if (abs_bits < 0x38800000u) {
    // Result is subnormal or zero: scale into the subnormal grid, let float rounding do RNE.
    float magnitude = bits_float(abs_bits) * 16777216.0f;  // * 2^24
    return sign | static_cast<uint16_t>(static_cast<uint32_t>(__builtin_nearbyintf(magnitude)));
  }
  uint32_t rounded = abs_bits + 0xfffu + ((abs_bits >> 13) & 1u);
  return sign | static_cast<uint16_t>((rounded - 0x38000000u) >> 13);
}

inline uint16_t float_to_bfloat16_bits(float f) {
  uint32_t bits = float_bits(f);
  if ((bits & 0x7fffffffu) > 0x7f800000u) return 0x7fc0u;  // nan
  bits += 0x7fffu + ((bits >> 16) & 1u);
  return static_cast<uint16_t>(bits >> 16);
}

}  // namespace detail

struct Half {
  uint16_t bits = 0;
  Half() = default;
  Half(float value) : bits(detail::float_to_half_bits(value)) {}  // NOLINT: implicit like c10::Half
  operator float() const { return detail::half_bits_to_float(bits); }
  static Half from_bits(uint16_t b) {
    Half h;
    h.bits = b;
    return h;
  }
};

struct BFloat16 {
  uint16_t bits = 0;
  BFloat16() = default;
  BFloat16(float value) : bits(detail::float_to_bfloat16_bits(value)) {}  // NOLINT
  operator float() const { return detail::bits_float(static_cast<uint32_t>(bits) << 16); }
  static BFloat16 from_bits(uint16_t b) {
    BFloat16 h;
    h.bits = b;
    return h;
  }
};

inline std::ostream& operator<<(std::ostream& out, Half h) { return out << static_cast<float>(h); }
inline std::ostream& operator<<(std::ostream& out, BFloat16 h) { return out << static_cast<float>(h); }

}  // namespace tg
