// CPU kernels of the unary pointwise operators: neg, abs, exp, log, sqrt, relu, sigmoid,
// tanh and clamp. The floating functions compute in the out dtype (float for float16 and
// bfloat16), with integral inputs converted on load.
#include <cmath>

#include "NativeFunctions.h"
#include "activation_math.h"
#include "cpu/loops.h"
#include "cpu/vectorized_loops.h"
#include "dtype_dispatch.h"
#include "scalar_math.h"

namespace tg {

void native::neg_out_cpu(const Tensor& self, const Tensor& out) {
  cpu::LaunchesOnly launches_only;  // see Note [Launch replay]
  TG_DISPATCH_NUMERIC_TYPES(out.scalar_type(), "neg", [&] {
    cpu::unary_kernel<scalar_t>(out, self, [](auto x) { return math::neg(x); });
  });
}

// No bool, as LibTorch's abs.
void native::abs_out_cpu(const Tensor& self, const Tensor& out) {
  cpu::LaunchesOnly launches_only;  // see Note [Launch replay]
  TG_DISPATCH_NUMERIC_TYPES(out.scalar_type(), "abs", [&] {
    cpu::unary_kernel<scalar_t>(out, self, [](auto x) { return math::abs(x); });
  });
}

void native::exp_out_cpu(const Tensor& self, const Tensor& out) {
  cpu::LaunchesOnly launches_only;  // see Note [Launch replay]
  TG_DISPATCH_FLOATING_TYPES(out.scalar_type(), "exp", [&] {
    cpu::vectorized_unary_kernel<scalar_t>(out, self, [](auto x) { return hd::exp(x); });
  });
}

void native::log_out_cpu(const Tensor& self, const Tensor& out) {
  cpu::LaunchesOnly launches_only;  // see Note [Launch replay]
  TG_DISPATCH_FLOATING_TYPES(out.scalar_type(), "log", [&] {
    cpu::unary_kernel<scalar_t>(out, self, [](auto x) { return std::log(x); });
  });
}

void native::sqrt_out_cpu(const Tensor& self, const Tensor& out) {
  cpu::LaunchesOnly launches_only;  // see Note [Launch replay]
  TG_DISPATCH_FLOATING_TYPES(out.scalar_type(), "sqrt", [&] {
    cpu::unary_kernel<scalar_t>(out, self, [](auto x) { return std::sqrt(x); });
  });
}

// relu(NaN) is NaN, as PyTorch's clamp_min(x, 0).
void native::relu_out_cpu(const Tensor& self, const Tensor& out) {
  cpu::LaunchesOnly launches_only;  // see Note [Launch replay]
  TG_DISPATCH_NUMERIC_TYPES(out.scalar_type(), "relu", [&] {
    cpu::unary_kernel<scalar_t>(out, self, [](auto x) {
      using T = decltype(x);
      return (x > T(0) || math::is_nan(x)) ? x : T(0);
    });
  });
}

void native::sigmoid_out_cpu(const Tensor& self, const Tensor& out) {
  cpu::LaunchesOnly launches_only;  // see Note [Launch replay]
  TG_DISPATCH_FLOATING_TYPES(out.scalar_type(), "sigmoid", [&] {
    cpu::vectorized_unary_kernel<scalar_t>(out, self, [](auto x) { return activation::sigmoid(x); });
  });
}

void native::tanh_out_cpu(const Tensor& self, const Tensor& out) {
  cpu::LaunchesOnly launches_only;  // see Note [Launch replay]
  TG_DISPATCH_FLOATING_TYPES(out.scalar_type(), "tanh", [&] {
    cpu::vectorized_unary_kernel<scalar_t>(out, self, [](auto x) { return hd::tanh(x); });
  });
}

// min(max(x, lo), hi): hi wins when lo > hi; a NaN input or bound gives NaN.
void native::clamp_out_cpu(const Tensor& self, const std::optional<Scalar>& min, const std::optional<Scalar>& max,
                           const Tensor& out) {
  cpu::LaunchesOnly launches_only;  // see Note [Launch replay]
  TG_DISPATCH_NUMERIC_TYPES(out.scalar_type(), "clamp", [&] {
    using T = opmath_t<scalar_t>;
    const std::optional<T> lo = min ? std::optional<T>(min->to<T>()) : std::nullopt;
    const std::optional<T> hi = max ? std::optional<T>(max->to<T>()) : std::nullopt;
    cpu::unary_kernel<scalar_t>(out, self, [lo, hi](T x) {
      if (lo) x = math::max_propagate_nan(x, *lo);
      if (hi) x = math::min_propagate_nan(x, *hi);
      return x;
    });
  });
}

}  // namespace tg
