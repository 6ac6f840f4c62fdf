// Scalar arithmetic with PyTorch's result on every dtype, shared by the CPU and the CUDA
// kernels (TG_HOST_DEVICE): integer +, -, * and negation wrap modulo 2^bits (computed in
// uint64, so they are defined behaviour); on bool, + is logical or and * logical and;
// max/min propagate NaN; integer pow by squaring, with PyTorch's answer for negative
// exponents.
#pragma once

#include <cstdint>
#include <type_traits>

#include "host_device_math.h"

namespace tg::math {

template <typename T>
inline constexpr bool is_wrapping_v = std::is_integral_v<T> && !std::is_same_v<T, bool>;

template <typename T>
TG_HOST_DEVICE inline T add(T a, T b) {
  if constexpr (std::is_same_v<T, bool>) {
    return a || b;
  } else if constexpr (is_wrapping_v<T>) {
    return static_cast<T>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
  } else {
    return a + b;
  }
}

template <typename T>
TG_HOST_DEVICE inline T sub(T a, T b) {
  if constexpr (is_wrapping_v<T>) {
    return static_cast<T>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
  } else {
    return a - b;
  }
}

template <typename T>
TG_HOST_DEVICE inline T mul(T a, T b) {
  if constexpr (std::is_same_v<T, bool>) {
    return a && b;
  } else if constexpr (is_wrapping_v<T>) {
    return static_cast<T>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
  } else {
    return a * b;
  }
}

template <typename T>
TG_HOST_DEVICE inline T neg(T a) {
  if constexpr (is_wrapping_v<T>) {
    return static_cast<T>(uint64_t{0} - static_cast<uint64_t>(a));
  } else {
    return -a;
  }
}

template <typename T>
TG_HOST_DEVICE inline T abs(T a) {
  if constexpr (std::is_unsigned_v<T> || std::is_same_v<T, bool>) {
    return a;
  } else if constexpr (std::is_integral_v<T>) {
    return a < 0 ? neg(a) : a;
  } else {
    return hd::fabs(a);
  }
}

// Integer power by squaring, as PyTorch's powi: a negative exponent gives 0 unless the base
// is 1 or -1 (the only bases whose reciprocal is an integer).
template <typename T>
TG_HOST_DEVICE inline T powi(T base, T exponent) {
  if constexpr (std::is_signed_v<T>) {
    if (exponent < 0) {
      if (base == 1) return 1;
      if (base == -1) return (exponent & 1) ? T(-1) : T(1);
      return 0;
    }
  }
  T result = 1;
  while (exponent != 0) {
    if (exponent & 1) result = mul(result, base);
    exponent = static_cast<T>(exponent / 2);
    base = mul(base, base);
  }
  return result;
}

template <typename T>
TG_HOST_DEVICE inline bool is_nan(T a) {
  if constexpr (std::is_floating_point_v<T>) {
    return a != a;  // true for NaN only; std::isnan is not a device function
  } else {
    return false;
  }
}

// The larger of a and b; NaN if either is NaN.
template <typename T>
TG_HOST_DEVICE inline T max_propagate_nan(T a, T b) {
  if (is_nan(a) || is_nan(b)) return is_nan(a) ? a : b;
  return a < b ? b : a;
}

// The smaller of a and b; NaN if either is NaN.
template <typename T>
TG_HOST_DEVICE inline T min_propagate_nan(T a, T b) {
  if (is_nan(a) || is_nan(b)) return is_nan(a) ? a : b;
  return b < a ? b : a;
}

}  // namespace tg::math
