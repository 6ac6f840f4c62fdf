// The elementwise math functions of schemas/pointwise_math.yaml (sin ... erfinv, atan2,
// maximum/minimum, fmax/fmin), written once for the CPU kernels (cpu/pointwise_math_kernels.cpp)
// and the CUDA ones (cuda/pointwise_math_ops.cu). The operator is a run-time enum, as in
// Note [One kernel per family and dtype] (cuda/binary_ops.cu); floating functions compute in
// the opmath type (float for float16 and bfloat16).
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "host_device_math.h"
#include "scalar_math.h"

namespace tg {

// Appended to only: the CUDA launcher and the CPU kernels index their names by value.
enum class FloatUnaryOp : uint8_t {
  Sin, Cos, Tan, Asin, Acos, Atan, Sinh, Cosh, Exp2, Expm1, Log1p, Log2, Log10, Erf, Erfinv
};
enum class MathBinaryOp : uint8_t { Atan2, Maximum, Minimum, Fmax, Fmin };

inline const char* float_unary_name(FloatUnaryOp op) {
  constexpr const char* kNames[] = {"sin",  "cos",   "tan",   "asin", "acos", "atan", "sinh",  "cosh",
                                    "exp2", "expm1", "log1p", "log2", "log10", "erf", "erfinv"};
  return kNames[static_cast<int>(op)];
}

inline const char* math_binary_name(MathBinaryOp op) {
  constexpr const char* kNames[] = {"atan2", "maximum", "minimum", "fmax", "fmin"};
  return kNames[static_cast<int>(op)];
}

namespace math {

#if defined(__CUDA_ARCH__)
#define TG_PM_CALL(fn, ...) ::fn(__VA_ARGS__)
#else
#define TG_PM_CALL(fn, ...) std::fn(__VA_ARGS__)
#endif

// Note [erfinv on the host]
// The C++ library has no erfinv. A first guess from Giles' single-precision approximation
// ("Approximating the erfinv function", GPU Computing Gems, 2011) is refined by two Newton
// steps on erf(x) - y in T, which reach the precision of erf itself for float and double.
// CUDA's math library has erfinv, used on the device.
template <typename T>
TG_HOST_DEVICE inline T erfinv(T y) {
#if defined(__CUDA_ARCH__)
  return ::erfinv(y);
#else
  if (y != y || y < T(-1) || y > T(1)) return std::numeric_limits<T>::quiet_NaN();
  if (y == T(1)) return std::numeric_limits<T>::infinity();
  if (y == T(-1)) return -std::numeric_limits<T>::infinity();
  const double yd = static_cast<double>(y);
  double w = -std::log((1.0 - yd) * (1.0 + yd));
  double x;
  if (w < 5.0) {
    w -= 2.5;
    double p = 2.81022636e-08;
    p = 3.43273939e-07 + p * w;
    p = -3.5233877e-06 + p * w;
    p = -4.39150654e-06 + p * w;
    p = 0.00021858087 + p * w;
    p = -0.00125372503 + p * w;
    p = -0.00417768164 + p * w;
    p = 0.246640727 + p * w;
    p = 1.50140941 + p * w;
    x = p * yd;
  } else {
    w = std::sqrt(w) - 3.0;
    double p = -0.000200214257;
    p = 0.000100950558 + p * w;
    p = 0.00134934322 + p * w;
    p = -0.00367342844 + p * w;
    p = 0.00573950773 + p * w;
    p = -0.0076224613 + p * w;
    p = 0.00943887047 + p * w;
    p = 1.00167406 + p * w;
    p = 2.83297682 + p * w;
    x = p * yd;
  }
  constexpr double kTwoOverSqrtPi = 1.1283791670955126;
  for (int step = 0; step < 2; ++step) x -= (std::erf(x) - yd) / (kTwoOverSqrtPi * std::exp(-x * x));
  return static_cast<T>(x);
#endif
}

template <typename T>
TG_HOST_DEVICE inline T float_unary(FloatUnaryOp op, T x) {
  switch (op) {
    case FloatUnaryOp::Sin: return TG_PM_CALL(sin, x);
    case FloatUnaryOp::Cos: return TG_PM_CALL(cos, x);
    case FloatUnaryOp::Tan: return TG_PM_CALL(tan, x);
    case FloatUnaryOp::Asin: return TG_PM_CALL(asin, x);
    case FloatUnaryOp::Acos: return TG_PM_CALL(acos, x);
    case FloatUnaryOp::Atan: return TG_PM_CALL(atan, x);
    case FloatUnaryOp::Sinh: return TG_PM_CALL(sinh, x);
    case FloatUnaryOp::Cosh: return TG_PM_CALL(cosh, x);
    case FloatUnaryOp::Exp2: return TG_PM_CALL(exp2, x);
    case FloatUnaryOp::Expm1: return TG_PM_CALL(expm1, x);
    case FloatUnaryOp::Log1p: return TG_PM_CALL(log1p, x);
    case FloatUnaryOp::Log2: return TG_PM_CALL(log2, x);
    case FloatUnaryOp::Log10: return TG_PM_CALL(log10, x);
    case FloatUnaryOp::Erf: return TG_PM_CALL(erf, x);
    case FloatUnaryOp::Erfinv: return erfinv(x);
  }
  return x;
}

// maximum/minimum propagate NaN (as torch.maximum); fmax/fmin return the other operand when
// one is NaN (as std::fmax). atan2 is floating only; the caller dispatches it so.
template <typename T>
TG_HOST_DEVICE inline T math_binary(MathBinaryOp op, T a, T b) {
  switch (op) {
    case MathBinaryOp::Atan2:
      if constexpr (std::is_floating_point_v<T>) return TG_PM_CALL(atan2, a, b);
      break;
    case MathBinaryOp::Maximum: return max_propagate_nan(a, b);
    case MathBinaryOp::Minimum: return min_propagate_nan(a, b);
    case MathBinaryOp::Fmax:
      if (is_nan(a)) return b;
      if (is_nan(b)) return a;
      return a < b ? b : a;
    case MathBinaryOp::Fmin:
      if (is_nan(a)) return b;
      if (is_nan(b)) return a;
      return b < a ? b : a;
  }
  return a;
}

#undef TG_PM_CALL

}  // namespace math
}  // namespace tg
