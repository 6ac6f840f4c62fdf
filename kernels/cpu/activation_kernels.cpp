// CPU kernels of gelu and silu and of their backward operators. Each computes in the out
// dtype (float for float16 and bfloat16). With Phi the standard normal CDF and phi its density:
//   gelu(x) = x Phi(x)                  gelu'(x) = Phi(x) + x phi(x)
//   silu(x) = x sigmoid(x)              silu'(x) = s (1 + x (1 - s)),  s = sigmoid(x)
// and for approximate='tanh', with u = k (x + c x^3), k = sqrt(2 / pi), c = 0.044715:
//   gelu(x) = 0.5 x (1 + tanh(u))       gelu'(x) = 0.5 (1 + t) + 0.5 x (1 - t^2) k (1 + 3 c x^2)
#include <cmath>

#include "NativeFunctions.h"
#include "cpu/loops.h"
#include "dtype_dispatch.h"
#include "gelu_approximation.h"

namespace tg {

namespace {

constexpr double kSqrt2OverPi = 0.7978845608028654;  // sqrt(2 / pi)
constexpr double kTanhCoefficient = 0.044715;
constexpr double kSqrtHalf = 0.7071067811865476;     // 1 / sqrt(2)
constexpr double kInvSqrt2Pi = 0.3989422804014327;   // 1 / sqrt(2 pi)

template <typename T>
T gelu_tanh_inner(T x) {
  return T(kSqrt2OverPi) * (x + T(kTanhCoefficient) * x * x * x);
}

template <typename T>
T sigmoid(T x) {
  return T(1) / (T(1) + std::exp(-x));
}

}  // namespace

void native::gelu_out_cpu(const Tensor& self, std::string_view approximate, const Tensor& out) {
  const GeluApproximation approximation = gelu_approximation(approximate, "gelu");
  TG_DISPATCH_FLOATING_TYPES(out.scalar_type(), "gelu", [&] {
    if (approximation == GeluApproximation::Tanh) {
      // 0.5 (1 + tanh(u)) = sigmoid(2u): one exp instead of a (slower) tanh.
      cpu::unary_kernel<scalar_t>(out, self, [](auto x) {
        using T = decltype(x);
        return x / (T(1) + std::exp(T(-2) * gelu_tanh_inner(x)));
      });
    } else {
      cpu::unary_kernel<scalar_t>(out, self, [](auto x) {
        using T = decltype(x);
        return T(0.5) * x * (T(1) + std::erf(x * T(kSqrtHalf)));
      });
    }
  });
}

void native::gelu_backward_out_cpu(const Tensor& grad_output, const Tensor& self, std::string_view approximate,
                                   const Tensor& grad_input) {
  const GeluApproximation approximation = gelu_approximation(approximate, "gelu_backward");
  TG_DISPATCH_FLOATING_TYPES(grad_input.scalar_type(), "gelu_backward", [&] {
    if (approximation == GeluApproximation::Tanh) {
      cpu::binary_kernel<scalar_t>(grad_input, grad_output, self, [](auto g, auto x) {
        using T = decltype(x);
        const T t = T(2) / (T(1) + std::exp(T(-2) * gelu_tanh_inner(x))) - T(1);  // tanh(u)
        const T du = T(kSqrt2OverPi) * (T(1) + T(3 * kTanhCoefficient) * x * x);
        return g * (T(0.5) * (T(1) + t) + T(0.5) * x * (T(1) - t * t) * du);
      });
    } else {
      cpu::binary_kernel<scalar_t>(grad_input, grad_output, self, [](auto g, auto x) {
        using T = decltype(x);
        const T cdf = T(0.5) * (T(1) + std::erf(x * T(kSqrtHalf)));
        const T pdf = T(kInvSqrt2Pi) * std::exp(T(-0.5) * x * x);
        return g * (cdf + x * pdf);
      });
    }
  });
}

void native::silu_out_cpu(const Tensor& self, const Tensor& out) {
  TG_DISPATCH_FLOATING_TYPES(out.scalar_type(), "silu", [&] {
    cpu::unary_kernel<scalar_t>(out, self, [](auto x) { return x * sigmoid(x); });
  });
}

void native::silu_backward_out_cpu(const Tensor& grad_output, const Tensor& self, const Tensor& grad_input) {
  TG_DISPATCH_FLOATING_TYPES(grad_input.scalar_type(), "silu_backward", [&] {
    cpu::binary_kernel<scalar_t>(grad_input, grad_output, self, [](auto g, auto x) {
      using T = decltype(x);
      const T s = sigmoid(x);
      return g * s * (T(1) + x * (T(1) - s));
    });
  });
}

}  // namespace tg
