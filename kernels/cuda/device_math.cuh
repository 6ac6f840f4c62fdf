// Scalar arithmetic of the CUDA kernels, with the CPU kernels' results on every dtype
// (kernels/cpu/scalar_math.h): integer +, -, * and negation wrap modulo 2^bits (computed in
// uint64); on bool, + is logical or and * logical and; max/min propagate NaN; integer pow by
// squaring, with PyTorch's answer for negative exponents.
#pragma once

#include <cstdint>
#include <type_traits>

namespace tg::cuda::math {

template <typename T>
inline constexpr bool is_wrapping_v = std::is_integral_v<T> && !std::is_same_v<T, bool>;

template <typename T>
__device__ inline T add(T a, T b) {
  if constexpr (std::is_same_v<T, bool>) {
    return a || b;
  } else if constexpr (is_wrapping_v<T>) {
    return static_cast<T>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
  } else {
    return a + b;
  }
}

template <typename T>
__device__ inline T sub(T a, T b) {
  if constexpr (is_wrapping_v<T>) {
    return static_cast<T>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
  } else {
    return a - b;
  }
}

template <typename T>
__device__ inline T mul(T a, T b) {
  if constexpr (std::is_same_v<T, bool>) {
    return a && b;
  } else if constexpr (is_wrapping_v<T>) {
    return static_cast<T>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
  } else {
    return a * b;
  }
}

template <typename T>
__device__ inline T neg(T a) {
  if constexpr (is_wrapping_v<T>) {
    return static_cast<T>(uint64_t{0} - static_cast<uint64_t>(a));
  } else {
    return -a;
  }
}

template <typename T>
__device__ inline T abs(T a) {
  if constexpr (std::is_unsigned_v<T> || std::is_same_v<T, bool>) {
    return a;
  } else if constexpr (std::is_integral_v<T>) {
    return a < 0 ? neg(a) : a;
  } else {
    return ::fabs(a);
  }
}

template <typename T>
__device__ inline T powi(T base, T exponent) {
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
__device__ inline bool is_nan(T a) {
  if constexpr (std::is_floating_point_v<T>) {
    return ::isnan(a);
  } else {
    return false;
  }
}

template <typename T>
__device__ inline T max_propagate_nan(T a, T b) {
  if (is_nan(a) || is_nan(b)) return is_nan(a) ? a : b;
  return a < b ? b : a;
}

template <typename T>
__device__ inline T min_propagate_nan(T a, T b) {
  if (is_nan(a) || is_nan(b)) return is_nan(a) ? a : b;
  return b < a ? b : a;
}

}  // namespace tg::cuda::math
