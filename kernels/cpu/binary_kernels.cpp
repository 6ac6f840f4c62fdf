// CPU kernels of the binary arithmetic operators: add, sub, mul, div, pow.
// The out dtype is the result type (meta functions), and the inputs load converted to it.
#include <cmath>

#include "NativeFunctions.h"
#include "cpu/loops.h"
#include "dtype_dispatch.h"
#include "scalar_math.h"

namespace tg {

// add on bool is logical or (alpha must then be bool too: see meta::add_out).
void native::add_out_cpu(const Tensor& self, const Tensor& other, const Scalar& alpha, const Tensor& out) {
  cpu::LaunchesOnly launches_only;  // see Note [Launch replay]
  TG_DISPATCH_ALL_TYPES(out.scalar_type(), "add", [&] {
    using T = opmath_t<scalar_t>;
    const T a = alpha.to<T>();
    if (a == T(1)) {
      cpu::binary_kernel<scalar_t>(out, self, other, [](T x, T y) { return math::add(x, y); });
    } else {
      cpu::binary_kernel<scalar_t>(out, self, other, [a](T x, T y) { return math::add(x, math::mul(a, y)); });
    }
  });
}

void native::sub_out_cpu(const Tensor& self, const Tensor& other, const Scalar& alpha, const Tensor& out) {
  cpu::LaunchesOnly launches_only;  // see Note [Launch replay]
  TG_DISPATCH_NUMERIC_TYPES(out.scalar_type(), "sub", [&] {
    using T = opmath_t<scalar_t>;
    const T a = alpha.to<T>();
    cpu::binary_kernel<scalar_t>(out, self, other, [a](T x, T y) { return math::sub(x, math::mul(a, y)); });
  });
}

// mul on bool is logical and.
void native::mul_out_cpu(const Tensor& self, const Tensor& other, const Tensor& out) {
  cpu::LaunchesOnly launches_only;  // see Note [Launch replay]
  TG_DISPATCH_ALL_TYPES(out.scalar_type(), "mul", [&] {
    cpu::binary_kernel<scalar_t>(out, self, other, [](auto x, auto y) { return math::mul(x, y); });
  });
}

// True division; the out dtype is floating (integral operands divide in the default dtype).
void native::div_out_cpu(const Tensor& self, const Tensor& other, const Tensor& out) {
  cpu::LaunchesOnly launches_only;  // see Note [Launch replay]
  TG_DISPATCH_FLOATING_TYPES(out.scalar_type(), "div", [&] {
    cpu::binary_kernel<scalar_t>(out, self, other, [](auto x, auto y) { return x / y; });
  });
}

void native::pow_out_cpu(const Tensor& self, const Tensor& exponent, const Tensor& out) {
  cpu::LaunchesOnly launches_only;  // see Note [Launch replay]
  TG_DISPATCH_NUMERIC_TYPES(out.scalar_type(), "pow", [&] {
    cpu::binary_kernel<scalar_t>(out, self, exponent, [](auto x, auto y) {
      if constexpr (std::is_integral_v<decltype(x)>) {
        return math::powi(x, y);
      } else {
        return std::pow(x, y);
      }
    });
  });
}

}  // namespace tg
