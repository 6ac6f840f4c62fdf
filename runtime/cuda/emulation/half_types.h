// __half and __nv_bfloat16 of the emulated device: 16-bit storage with the bits of tg::Half and
// tg::BFloat16, converted through float with rounding to nearest even (as cuda_fp16.h's
// __float2half_rn). Only the conversions tensorgen's kernels use exist; arithmetic is in float.
#pragma once

#include <cstdint>

#include "core/half.h"

struct __half {
  uint16_t __x;
  __half() = default;
  __half(float value) : __x(tg::detail::float_to_half_bits(value)) {}  // NOLINT: implicit, as CUDA's
  operator float() const { return tg::detail::half_bits_to_float(__x); }
};

struct __nv_bfloat16 {
  uint16_t __x;
  __nv_bfloat16() = default;
  __nv_bfloat16(float value) : __x(tg::detail::float_to_bfloat16_bits(value)) {}  // NOLINT
  operator float() const { return tg::detail::bits_float(static_cast<uint32_t>(__x) << 16); }
};

inline float __half2float(__half h) { return static_cast<float>(h); }
inline __half __float2half_rn(float f) { return __half(f); }
inline __half __ushort_as_half(unsigned short bits) {
  __half h;
  h.__x = bits;
  return h;
}
inline unsigned short __half_as_ushort(__half h) { return h.__x; }

inline float __bfloat162float(__nv_bfloat16 h) { return static_cast<float>(h); }
inline __nv_bfloat16 __float2bfloat16_rn(float f) { return __nv_bfloat16(f); }
inline __nv_bfloat16 __ushort_as_bfloat16(unsigned short bits) {
  __nv_bfloat16 h;
  h.__x = bits;
  return h;
}
inline unsigned short __bfloat16_as_ushort(__nv_bfloat16 h) { return h.__x; }
