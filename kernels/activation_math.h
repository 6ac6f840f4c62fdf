// The formulas of gelu and silu and of their derivatives, written once for the CPU kernels
// (kernels/cpu/activation_kernels.cpp) and the CUDA ones (kernels/cuda/unary_ops.cu,
// binary_ops.cu). T is the compute type (float for float16 and bfloat16). With Phi the
// standard normal CDF and phi its density:
//   gelu(x) = x Phi(x)                  gelu'(x) = Phi(x) + x phi(x)
//   silu(x) = x sigmoid(x)              silu'(x) = s (1 + x (1 - s)),  s = sigmoid(x)
// and for approximate='tanh', with u = k (x + c x^3), k = sqrt(2 / pi), c = 0.044715:
//   gelu(x) = 0.5 x (1 + tanh(u))       gelu'(x) = 0.5 (1 + t) + 0.5 x (1 - t^2) k (1 + 3 c x^2)
// 0.5 (1 + tanh(u)) is computed as sigmoid(2u): one exp instead of a (slower) tanh.
#pragma once

#include "host_device_math.h"

namespace tg::activation {

inline constexpr double kSqrt2OverPi = 0.7978845608028654;  // sqrt(2 / pi)
inline constexpr double kTanhCoefficient = 0.044715;
inline constexpr double kSqrtHalf = 0.7071067811865476;     // 1 / sqrt(2)
inline constexpr double kInvSqrt2Pi = 0.3989422804014327;   // 1 / sqrt(2 pi)

template <typename T>
TG_HOST_DEVICE inline T sigmoid(T x) {
  return T(1) / (T(1) + hd::exp(-x));
}

template <typename T>
TG_HOST_DEVICE inline T gelu_tanh_inner(T x) {
  return T(kSqrt2OverPi) * (x + T(kTanhCoefficient) * x * x * x);
}

template <typename T>
TG_HOST_DEVICE inline T gelu(T x, bool tanh_approximation) {
  if (tanh_approximation) return x / (T(1) + hd::exp(T(-2) * gelu_tanh_inner(x)));
  return T(0.5) * x * (T(1) + hd::erf(x * T(kSqrtHalf)));
}

// g * gelu'(x)
template <typename T>
TG_HOST_DEVICE inline T gelu_backward(T g, T x, bool tanh_approximation) {
  if (tanh_approximation) {
    const T t = T(2) / (T(1) + hd::exp(T(-2) * gelu_tanh_inner(x))) - T(1);  // tanh(u)
    const T du = T(kSqrt2OverPi) * (T(1) + T(3 * kTanhCoefficient) * x * x);
    return g * (T(0.5) * (T(1) + t) + T(0.5) * x * (T(1) - t * t) * du);
  }
  const T cdf = T(0.5) * (T(1) + hd::erf(x * T(kSqrtHalf)));
  const T pdf = T(kInvSqrt2Pi) * hd::exp(T(-0.5) * x * x);
  return g * (cdf + x * pdf);
}

template <typename T>
TG_HOST_DEVICE inline T silu(T x) {
  return x * sigmoid(x);
}

// g * silu'(x)
template <typename T>
TG_HOST_DEVICE inline T silu_backward(T g, T x) {
  const T s = sigmoid(x);
  return g * s * (T(1) + x * (T(1) - s));
}

}  // namespace tg::activation
