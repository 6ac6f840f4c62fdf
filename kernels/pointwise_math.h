// What the `kernel: formula`s of the schemas may call, for the host and the device: TG_PM_CALL
// (std:: on the host, CUDA's math library on the device) and the functions whose formula is too
// long for a schema line (erfinv, fmax/fmin). The generated PointwiseKernels.h pastes each
// formula into its family's switch (Note [Kernels declared in the schema],
// codegen/kernel_families.py); floating functions compute in the opmath type (float for
// float16 and bfloat16). Included only by the families' kernel files.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "host_device_math.h"
#include "scalar_math.h"

namespace tg {

namespace math {

// TG_PM_CALL(sin, x): the math function of the side being compiled.
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

// fmax/fmin return the other operand when one is NaN (as std::fmax); maximum and minimum
// propagate NaN instead (max_propagate_nan, scalar_math.h).
template <typename T>
TG_HOST_DEVICE inline T fmax_ignoring_nan(T a, T b) {
  if (is_nan(a)) return b;
  if (is_nan(b)) return a;
  return a < b ? b : a;
}

template <typename T>
TG_HOST_DEVICE inline T fmin_ignoring_nan(T a, T b) {
  if (is_nan(a)) return b;
  if (is_nan(b)) return a;
  return b < a ? b : a;
}

// pow: integer power by squaring for integral T (powi: PyTorch's, a negative exponent gives 0
// unless the base is +-1), the math library's pow for floating T. Never bool (dtypes: numeric).
template <typename T>
TG_HOST_DEVICE inline T power(T base, T exponent) {
  if constexpr (std::is_integral_v<T>) {
    return powi(base, exponent);
  } else {
    return TG_PM_CALL(pow, base, exponent);
  }
}

}  // namespace math
}  // namespace tg
