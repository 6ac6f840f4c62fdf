// CPU kernels of gelu and silu and of their backward operators, and of threshold_backward
// (relu's derivative). Each computes in the out dtype's compute type (float for float16 and
// bfloat16); the formulas are in activation_math.h, shared with the CUDA kernels, and float
// tensors run them on SIMD vectors (cpu/vectorized_loops.h).
#include "NativeFunctions.h"
#include "activation_math.h"
#include "cpu/loops.h"
#include "cpu/vectorized_loops.h"
#include "dtype_dispatch.h"
#include "gelu_approximation.h"

namespace tg {

void native::gelu_out_cpu(const Tensor& self, std::string_view approximate, const Tensor& out) {
  cpu::LaunchesOnly launches_only;  // see Note [Launch replay]
  const bool tanh = gelu_approximation(approximate, "gelu") == GeluApproximation::Tanh;
  TG_DISPATCH_FLOATING_TYPES(out.scalar_type(), "gelu", [&] {
    cpu::vectorized_unary_kernel<scalar_t>(out, self, [tanh](auto x) { return activation::gelu(x, tanh); });
  });
}

void native::gelu_backward_out_cpu(const Tensor& grad_output, const Tensor& self, std::string_view approximate,
                                   const Tensor& grad_input) {
  cpu::LaunchesOnly launches_only;  // see Note [Launch replay]
  const bool tanh = gelu_approximation(approximate, "gelu_backward") == GeluApproximation::Tanh;
  TG_DISPATCH_FLOATING_TYPES(grad_input.scalar_type(), "gelu_backward", [&] {
    cpu::vectorized_binary_kernel<scalar_t>(grad_input, grad_output, self,
                                            [tanh](auto g, auto x) { return activation::gelu_backward(g, x, tanh); });
  });
}

void native::silu_out_cpu(const Tensor& self, const Tensor& out) {
  cpu::LaunchesOnly launches_only;  // see Note [Launch replay]
  TG_DISPATCH_FLOATING_TYPES(out.scalar_type(), "silu", [&] {
    cpu::vectorized_unary_kernel<scalar_t>(out, self, [](auto x) { return activation::silu(x); });
  });
}

void native::silu_backward_out_cpu(const Tensor& grad_output, const Tensor& self, const Tensor& grad_input) {
  cpu::LaunchesOnly launches_only;  // see Note [Launch replay]
  TG_DISPATCH_FLOATING_TYPES(grad_input.scalar_type(), "silu_backward", [&] {
    cpu::vectorized_binary_kernel<scalar_t>(grad_input, grad_output, self,
                                            [](auto g, auto x) { return activation::silu_backward(g, x); });
  });
}

// grad where self > threshold, else 0 (relu's derivative). Compared in the compute type,
// as the forward compared.
void native::threshold_backward_out_cpu(const Tensor& grad_output, const Tensor& self, const Scalar& threshold,
                                        const Tensor& grad_input) {
  cpu::LaunchesOnly launches_only;  // see Note [Launch replay]
  TG_DISPATCH_NUMERIC_TYPES(grad_input.scalar_type(), "threshold_backward", [&] {
    using T = opmath_t<scalar_t>;
    const T t = threshold.to<T>();
    cpu::binary_kernel<scalar_t>(grad_input, grad_output, self, [t](T g, T x) { return x <= t ? T(0) : g; });
  });
}

}  // namespace tg
